/**
 * The CDK app: bundles the handler, builds the stack, runs cdk-nag's AWS Solutions checks (any unacknowledged finding fails the synth).
 * Context (-c key=value): domainNames=a.example,b.example certificateArn=arn:... originSecretVersions=newId,oldId
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bundleLambda } from '../bundle.ts';
import { DirectoryStack, STACK_REGION } from '../stack.ts';

const app = new App();
const list = (key: string): string[] =>
  String(app.node.tryGetContext(key) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const domainNames = list('domainNames');
const certificateArn = app.node.tryGetContext('certificateArn') as string | undefined;
if (domainNames.length > 0 && certificateArn === undefined) throw new Error('domainNames needs certificateArn (an ACM certificate in us-east-1)');

process.stderr.write('bundling the Lambda handler ...\n');
const bundle = bundleLambda();
process.stderr.write(`bundle: ${bundle.bytes} bytes (${bundle.gzipBytes} gzipped)\n`);

new DirectoryStack(app, 'InjuryAttorneyDirectory', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: STACK_REGION },
  description: 'Injury attorney directory: S3 + CloudFront + Lambda Function URL + WAF',
  codeDir: bundle.dir,
  originSecretVersionIds: list('originSecretVersions'),
  ...(domainNames.length > 0 && certificateArn !== undefined ? { domain: { names: domainNames, certificateArn } } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
