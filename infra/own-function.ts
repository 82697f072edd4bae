/** A Node Lambda function with its own log group and a least-privilege role: what the API function and the rotator share. */
import type { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { SALT_PREFIX } from '../shim/aws/salt.ts';

/** Days a function's log lines (request lines hold only a salted address hash) are kept. */
export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/** The construct ids of the four pieces, in the caller's scope (they name the CloudFormation resources). */
export interface OwnFunctionIds {
  logs: string;
  role: string;
  policy: string;
  fn: string;
}

/** What differs between the functions. */
export interface OwnFunctionProps {
  ids: OwnFunctionIds;
  roleDescription: string;
  /** The role's statements before the one that lets it write its own logs (always last). */
  statements: iam.PolicyStatement[];
  description: string;
  /** Folder holding the bundle (index.mjs exporting handler). */
  codeDir: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
}

/** The pieces, for the stack's outputs and the tests. */
export interface OwnFunction {
  fn: lambda.Function;
  logGroup: logs.LogGroup;
  role: iam.Role;
  policy: iam.Policy;
}

/** The two statements of a function that reads and creates the daily salt in the salt bucket. */
export function dailySaltStatements(saltBucket: s3.IBucket): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'DailySalt',
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [saltBucket.arnForObjects(`${SALT_PREFIX}*`)],
    }),
    new iam.PolicyStatement({
      sid: 'MissingSaltIs404',
      actions: ['s3:ListBucket'],
      resources: [saltBucket.bucketArn],
    }),
  ];
}

/** Log group, role with an inline policy, and the function (latest Node runtime, arm64) that waits for its policy. */
export function ownFunction(scope: Construct, props: OwnFunctionProps): OwnFunction {
  const logGroup = new logs.LogGroup(scope, props.ids.logs, { retention: LOG_RETENTION });
  const role = new iam.Role(scope, props.ids.role, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: props.roleDescription,
  });
  const policy = new iam.Policy(scope, props.ids.policy, {
    statements: [
      ...props.statements,
      new iam.PolicyStatement({
        sid: 'OwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    ],
  });
  role.attachInlinePolicy(policy);
  const fn = new lambda.Function(scope, props.ids.fn, {
    description: props.description,
    // The latest runtime; the bundles target it (infra/bundle.ts LAMBDA_NODE_TARGET) and CI runs the Lambda suites on it.
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: lambda.Code.fromAsset(props.codeDir),
    memorySize: props.memorySize,
    timeout: props.timeout,
    role,
    logGroup,
    environment: props.environment,
  });
  // The role's policy must exist before the first invocation.
  fn.node.addDependency(policy);
  return { fn, logGroup, role, policy };
}
