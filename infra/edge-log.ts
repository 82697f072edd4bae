/**
 * The request log at the edge (docs/DEPLOY.md, "Request log"): the viewer-request CloudFront Function of every cached
 * function path (it also normalises /v1/attorneys queries), its log group with retention, the KeyValueStore it reads
 * the day's salt from, and the hourly Lambda that rotates the salt into the store.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { viewerRequestCode } from './edge-function.ts';
import { dailySaltStatements, LOG_RETENTION, ownFunction } from './own-function.ts';

/** How often the salt rotation runs: today's and tomorrow's salt are in place long before each UTC midnight. */
export const ROTATION_EVERY = Duration.hours(1);

/** What the edge log needs. */
export interface EdgeLogProps {
  /** The bucket of the daily salts the function instances share (the edge hashes with the same salt). */
  saltBucket: s3.IBucket;
  /** Folder holding the rotator's bundle (infra/rotator-bundle.ts). */
  rotatorCodeDir: string;
}

/** Viewer-request function, its logs, the salt store and the rotation. */
export class EdgeLog extends Construct {
  readonly store: cloudfront.KeyValueStore;
  readonly viewerRequest: cloudfront.Function;
  readonly functionLogGroup: logs.LogGroup;
  readonly rotator: lambda.Function;
  readonly rotatorPolicy: iam.Policy;

  constructor(scope: Construct, id: string, props: EdgeLogProps) {
    super(scope, id);

    this.store = new cloudfront.KeyValueStore(this, 'Salts', {
      comment: 'Daily salt of the edge request log (salt-<YYYY-MM-DD>, today and tomorrow only)',
    });
    this.viewerRequest = new cloudfront.Function(this, 'ViewerRequest', {
      comment: 'Viewer host copy, /v1/attorneys query normalisation, request log line with a salted address hash',
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      keyValueStore: this.store,
      code: cloudfront.FunctionCode.fromInline(viewerRequestCode(this.store.keyValueStoreId)),
    });
    // CloudFront writes the function's console.log lines here (us-east-1); created by the stack so they expire.
    this.functionLogGroup = new logs.LogGroup(this, 'FunctionLogs', {
      logGroupName: `/aws/cloudfront/function/${this.viewerRequest.functionName}`,
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const rotator = ownFunction(this, {
      ids: { logs: 'RotatorLogs', role: 'RotatorRole', policy: 'RotatorPolicy', fn: 'Rotator' },
      roleDescription:
        'Salt rotator: read/create the daily salt, write it to the edge key-value store, write its own logs',
      statements: [
        new iam.PolicyStatement({
          sid: 'EdgeSaltStore',
          actions: [
            'cloudfront-keyvaluestore:DescribeKeyValueStore',
            'cloudfront-keyvaluestore:ListKeys',
            'cloudfront-keyvaluestore:PutKey',
            'cloudfront-keyvaluestore:DeleteKey',
          ],
          resources: [this.store.keyValueStoreArn],
        }),
        ...dailySaltStatements(props.saltBucket),
      ],
      description: "Copies the day's salt into the edge key-value store (today and tomorrow) and deletes older days",
      codeDir: props.rotatorCodeDir,
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: { SALT_BUCKET: props.saltBucket.bucketName, EDGE_SALT_KVS_ARN: this.store.keyValueStoreArn },
    });
    this.rotator = rotator.fn;
    this.rotatorPolicy = rotator.policy;
    new events.Rule(this, 'RotationSchedule', {
      description: "Hourly: today's and tomorrow's salt in the edge store, older ones deleted",
      schedule: events.Schedule.rate(ROTATION_EVERY),
      targets: [new targets.LambdaFunction(this.rotator, { retryAttempts: 2 })],
    });
  }
}
