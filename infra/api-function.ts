/** The shim as a Lambda function behind a Function URL: least-privilege role, its own log group with retention. */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { dailySaltStatements, ownFunction } from './own-function.ts';
import { REQUESTS_PER_HOUR, WINDOW_SECONDS } from './waf.ts';
import { LAMBDA_TIMEOUT_SECONDS } from '../shim/store/deadline.ts';

/** Memory of the function, in MB (also buys CPU: JSON parsing of site objects is the main cost). */
export const MEMORY_MB = 512;

/** What the function needs to know. */
export interface ApiFunctionProps {
  /** Folder holding the esbuild bundle (index.mjs), see infra/bundle.ts. */
  codeDir: string;
  siteBucket: s3.IBucket;
  saltBucket: s3.IBucket;
  /** Comma-separated accepted origin secrets (dynamic references). */
  originSecrets: string;
  /** Base URL for links when the distribution has a custom domain; otherwise the viewer host is used. */
  publicBaseUrl?: string;
}

/** Function, role, log group and Function URL (auth NONE: the origin secret is checked in code, see OriginSecret). */
export class ApiFunction extends Construct {
  readonly fn: lambda.Function;
  readonly url: lambda.FunctionUrl;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;
  readonly policy: iam.Policy;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    const own = ownFunction(this, {
      ids: { logs: 'Logs', role: 'Role', policy: 'Policy', fn: 'Handler' },
      roleDescription: 'Directory function: read the published site, read/write the daily salt, write its own logs',
      statements: [
        new iam.PolicyStatement({
          sid: 'ReadPublishedSite',
          actions: ['s3:GetObject'],
          resources: [props.siteBucket.arnForObjects('v/*'), props.siteBucket.arnForObjects('current.json')],
        }),
        // Without ListBucket S3 answers 403 instead of 404 for a missing key, and an unknown firm id would be a 503.
        // The site bucket holds only what CloudFront publishes anyway; salts live in their own bucket.
        new iam.PolicyStatement({
          sid: 'MissingSiteKeysAre404',
          actions: ['s3:ListBucket'],
          resources: [props.siteBucket.bucketArn],
        }),
        ...dailySaltStatements(props.saltBucket),
      ],
      description: 'Injury attorney directory: REST, MCP and redirects over the published site',
      codeDir: props.codeDir,
      memorySize: MEMORY_MB,
      // The store reads of an invocation share one deadline, DEFAULT_STORE_TIMEOUT_MS, set well inside this.
      timeout: Duration.seconds(LAMBDA_TIMEOUT_SECONDS),
      environment: {
        SITE_BUCKET: props.siteBucket.bucketName,
        SALT_BUCKET: props.saltBucket.bucketName,
        ORIGIN_VERIFY_SECRETS: props.originSecrets,
        // The function counts and advertises in the WAF rule's window, so every answer states what WAF enforces.
        RATE_LIMIT_PER_HOUR: String(REQUESTS_PER_HOUR),
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
        ...(props.publicBaseUrl !== undefined ? { PUBLIC_BASE_URL: props.publicBaseUrl } : {}),
      },
    });
    this.fn = own.fn;
    this.logGroup = own.logGroup;
    this.role = own.role;
    this.policy = own.policy;

    this.url = this.fn.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.BUFFERED,
    });
  }
}
