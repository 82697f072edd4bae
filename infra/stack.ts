/** The whole AWS deployment in one stack (us-east-1: a CLOUDFRONT-scope web ACL must live there). */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { Cdn } from './cdn.ts';
import { EdgeLog } from './edge-log.ts';
import { acknowledgeJustifiedFindings } from './nag.ts';
import { OriginSecret } from './origin-secret.ts';
import { Storage } from './storage.ts';
import { RateLimitAcl } from './waf.ts';

/** The only region the stack deploys to. */
export const STACK_REGION = 'us-east-1';

/** Settings of one deployment. */
export interface DirectoryStackProps extends StackProps {
  /** Folder with the Lambda bundle (infra/bundle.ts). */
  codeDir: string;
  /** Folder with the salt rotator's bundle (infra/rotator-bundle.ts). */
  rotatorCodeDir: string;
  /** Custom domain names and an ACM certificate (us-east-1) covering them; also sets PUBLIC_BASE_URL. */
  domain?: { names: string[]; certificateArn: string };
  /** Secrets Manager version ids of the origin secret during a rotation: [sent and accepted, ...also accepted]. */
  originSecretVersionIds?: string[];
  /** Leave the cdk-nag acknowledgements off (tests show that each one covers a real finding). Default false. */
  withoutNagAcknowledgements?: boolean;
}

/** Buckets, function, distribution, web ACL, and the outputs an operator needs. */
export class DirectoryStack extends Stack {
  readonly storage: Storage;
  readonly api: ApiFunction;
  readonly cdn: Cdn;
  readonly acl: RateLimitAcl;
  readonly originSecret: OriginSecret;
  readonly edgeLog: EdgeLog;

  constructor(scope: Construct, id: string, props: DirectoryStackProps) {
    super(scope, id, props);
    if (!this.region.startsWith('${Token') && this.region !== STACK_REGION) {
      throw new Error(`DirectoryStack must be deployed to ${STACK_REGION} (CLOUDFRONT-scope WAF); got ${this.region}`);
    }

    this.storage = new Storage(this, 'Storage');
    this.originSecret = new OriginSecret(this, 'OriginSecret', { versionIds: props.originSecretVersionIds ?? [] });
    const firstDomain = props.domain?.names[0];
    this.api = new ApiFunction(this, 'Api', {
      codeDir: props.codeDir,
      siteBucket: this.storage.siteBucket,
      saltBucket: this.storage.saltBucket,
      originSecrets: this.originSecret.accepted(),
      ...(firstDomain !== undefined ? { publicBaseUrl: `https://${firstDomain}` } : {}),
    });
    this.acl = new RateLimitAcl(this, 'RateLimit');
    this.edgeLog = new EdgeLog(this, 'EdgeLog', {
      saltBucket: this.storage.saltBucket,
      rotatorCodeDir: props.rotatorCodeDir,
    });
    this.cdn = new Cdn(this, 'Cdn', {
      siteBucket: this.storage.siteBucket,
      functionUrl: this.api.url,
      originSecret: this.originSecret.sent(),
      webAclArn: this.acl.webAcl.attrArn,
      viewerRequest: this.edgeLog.viewerRequest,
      ...(props.domain !== undefined ? { domain: props.domain } : {}),
    });

    new CfnOutput(this, 'DistributionDomainName', { value: this.cdn.distribution.distributionDomainName });
    new CfnOutput(this, 'DistributionId', { value: this.cdn.distribution.distributionId });
    new CfnOutput(this, 'SiteBucketName', { value: this.storage.siteBucket.bucketName });
    new CfnOutput(this, 'SaltBucketName', { value: this.storage.saltBucket.bucketName });
    new CfnOutput(this, 'FunctionName', { value: this.api.fn.functionName });
    new CfnOutput(this, 'FunctionLogGroup', { value: this.api.logGroup.logGroupName });
    new CfnOutput(this, 'EdgeLogGroup', { value: this.edgeLog.functionLogGroup.logGroupName });
    new CfnOutput(this, 'OriginSecretArn', { value: this.originSecret.secret.secretArn });

    if (props.withoutNagAcknowledgements !== true) this.acknowledge(props.domain !== undefined);
  }

  private acknowledge(customCertificate: boolean): void {
    acknowledgeJustifiedFindings({
      siteBucket: this.storage.siteBucket,
      saltBucket: this.storage.saltBucket,
      functionPolicy: this.api.policy,
      rotatorPolicy: this.edgeLog.rotatorPolicy,
      originSecret: this.originSecret.secret,
      distribution: this.cdn.distribution,
      customCertificate,
    });
  }
}
