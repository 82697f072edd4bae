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
import { cliOrExit, EXIT, printUsageError } from '../../shim/lib/cli-run.ts';

const SPEC = {
  name: 'infra:synth',
  usage: 'npm run infra:synth -- [-c key=value ...] [-o dir] [--quiet]',
  description: `Synthesises the AWS stack into infra/cdk.out (or dir) with aws-cdk-lib's own synthesiser, offline, after
bundling the Lambda handler; cdk-nag's AwsSolutions checks run during synthesis and fail it on any unacknowledged
finding. The CDK CLI runs the same app from infra/ (cdk.json): npx cdk synth | deploy.`,
  options: {
    context: {
      type: 'string',
      short: 'c',
      multiple: true,
      arg: 'key=value',
      description: 'one context value; the keys are listed below',
    },
    output: { type: 'string', short: 'o', arg: 'dir', description: 'folder of the cloud assembly (default cdk.out)' },
    quiet: { type: 'boolean', short: 'q', description: 'no progress lines on stderr' },
  },
  epilogue: `Context keys (-c key=value):
  domainNames            comma-separated custom domain names of the distribution
  certificateArn         ACM certificate in us-east-1 covering them (required with domainNames)
  originSecretVersions   Secrets Manager version ids of the origin secret during a rotation: sent,also-accepted`,
} as const;

/** Context and output folder from the shared CLI parser (shim/lib/cli-args.ts): `-c key=value`, `-o dir`, `-q`. */
function parseArgs(argv: string[]): { context: Record<string, string>; outdir: string | undefined; quiet: boolean } {
  const { values } = cliOrExit(SPEC, argv);
  const context: Record<string, string> = {};
  for (const pair of values.context) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      printUsageError(SPEC, `--context needs key=value, got ${JSON.stringify(pair)}`);
      process.exit(EXIT.usage);
    }
    context[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return { context, outdir: values.output === undefined ? undefined : resolve(values.output), quiet: values.quiet };
}

async function main(argv: string[]): Promise<void> {
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
