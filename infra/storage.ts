/** The two private buckets: the published site (versioned) and the daily salts (unversioned, gone within 48 hours). */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { SALT_PREFIX } from '../shim/aws/salt.ts';

/** Days a replaced or deleted site object stays recoverable (rollback of a bad publish or correction). */
export const NONCURRENT_VERSION_DAYS = 30;

/** Settings every bucket of the stack shares: private, TLS only, encrypted, owner-enforced. */
function privateBucketProps(): s3.BucketProps {
  return {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    encryption: s3.BucketEncryption.S3_MANAGED,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}

/** The site bucket (current.json and v/<version>/...) and the salt bucket (private/salt/<day>). */
export class Storage extends Construct {
  readonly siteBucket: s3.Bucket;
  readonly saltBucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.siteBucket = new s3.Bucket(this, 'SiteBucket', {
      ...privateBucketProps(),
      versioned: true,
      lifecycleRules: [
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        { id: 'remove-expired-delete-markers', expiredObjectDeleteMarker: true },
        // Salts belong in the salt bucket; this only guards an operator who points SALT_BUCKET here.
        {
          id: 'expire-stray-salts',
          prefix: SALT_PREFIX,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
    });

    // Unversioned on purpose: with versioning an expired salt would survive as a noncurrent version for
    // another lifecycle day, and "unrecoverable within 48 hours" would no longer hold (docs/CONTRACT.md, Privacy).
    this.saltBucket = new s3.Bucket(this, 'SaltBucket', {
      ...privateBucketProps(),
      versioned: false,
      lifecycleRules: [{ id: 'expire-daily-salts', prefix: SALT_PREFIX, expiration: Duration.days(1) }],
    });
  }
}
