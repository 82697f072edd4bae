/**
 * The CDK app: bundles the handler, builds the stack, runs cdk-nag's AWS Solutions checks (any unacknowledged finding
 * fails the synth). Run by the CDK CLI (cdk.json) or directly: `npm run infra:synth -- [-c key=value ...] [-o dir]`.
 * Context: domainNames=a.example,b.example certificateArn=arn:... originSecretVersions=newId,oldId
 */
import { resolve } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bundleLambda } from '../bundle.ts';
import { bundleSaltRotator } from '../rotator-bundle.ts';
import { DirectoryStack, STACK_REGION } from '../stack.ts';
import { cdkJsonContext } from '../context.ts';

const HELP = `Usage: npm run infra:synth -- [-c key=value ...] [-o dir] [--quiet]
Synthesises the AWS stack into infra/cdk.out (or dir) with aws-cdk-lib's own synthesiser, offline, after bundling the
Lambda handler; cdk-nag's AwsSolutions checks run during synthesis and fail it on any unacknowledged finding.
The CDK CLI runs the same app from infra/ (cdk.json): npx cdk synth | deploy.

Context keys (-c key=value):
  domainNames            comma-separated custom domain names of the distribution
  certificateArn         ACM certificate in us-east-1 covering them (required with domainNames)
  originSecretVersions   Secrets Manager version ids of the origin secret during a rotation: sent,also-accepted
`;

/** Context and output folder from `-c key=value`, `--context key=value`, `-o dir`, `--output dir`. */
function parseArgs(argv: string[]): { context: Record<string, string>; outdir: string | undefined; quiet: boolean } {
  const context: Record<string, string> = {};
  let outdir: string | undefined;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-c' || arg === '--context') {
      const pair = argv[++i] ?? '';
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`${arg} needs key=value, got ${JSON.stringify(pair)}`);
      context[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (arg === '-o' || arg === '--output') {
      outdir = resolve(argv[++i] ?? 'cdk.out');
    } else if (arg === '-q' || arg === '--quiet') {
      quiet = true;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}\n\n${HELP}`);
    }
  }
  return { context, outdir, quiet };
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const args = parseArgs(argv);
  // Under the CDK CLI, CDK_OUTDIR and CDK_CONTEXT_JSON are set and App reads them itself.
  const direct = process.env.CDK_OUTDIR === undefined;
  // Run directly, the app applies cdk.json's feature flags itself (the CLI passes them in CDK_CONTEXT_JSON).
  const app = new App({
    ...(direct ? { outdir: args.outdir ?? resolve('cdk.out') } : {}),
    context: { ...(direct ? cdkJsonContext() : {}), ...args.context },
  });
  const list = (key: string): string[] =>
    String(app.node.tryGetContext(key) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');

  const domainNames = list('domainNames');
  const certificateArn = app.node.tryGetContext('certificateArn') as string | undefined;
  if (domainNames.length > 0 && certificateArn === undefined)
    throw new Error('domainNames needs certificateArn (an ACM certificate in us-east-1)');

  if (!args.quiet) process.stderr.write('bundling the Lambda handler ...\n');
  const bundle = await bundleLambda();
  if (!args.quiet) process.stderr.write(`bundle: ${bundle.bytes} bytes (${bundle.gzipBytes} gzipped)\n`);
  const rotator = await bundleSaltRotator();
  if (!args.quiet) process.stderr.write(`salt rotator bundle: ${rotator.bytes} bytes\n`);

  new DirectoryStack(app, 'InjuryAttorneyDirectory', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: STACK_REGION },
    description: 'Injury attorney directory: S3 + CloudFront + Lambda Function URL + WAF',
    codeDir: bundle.dir,
    rotatorCodeDir: rotator.dir,
    originSecretVersionIds: list('originSecretVersions'),
    ...(domainNames.length > 0 && certificateArn !== undefined
      ? { domain: { names: domainNames, certificateArn } }
      : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  if (!args.quiet) process.stderr.write('synthesising (cdk-nag AwsSolutions checks run now) ...\n');
  const assembly = app.synth();
  if (!args.quiet) process.stderr.write(`cloud assembly written to ${assembly.directory}\n`);
}

await main(process.argv.slice(2));
