/** cdk-nag (AwsSolutions) findings acknowledged for this stack, each with the reason it does not apply here. */
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';

/** The constructs that carry findings. */
export interface NagTargets {
  siteBucket: s3.Bucket;
  saltBucket: s3.Bucket;
  functionPolicy: iam.Policy;
  rotatorPolicy: iam.Policy;
  originSecret: secretsmanager.Secret;
  distribution: cloudfront.Distribution;
  /** True when the distribution has its own certificate (then TLS 1.2 is enforced and CFR4 cannot occur). */
  customCertificate: boolean;
}

/** One acknowledged finding: rule id (with the finding in brackets for per-finding rules) and why. */
export interface Acknowledgement {
  id: string;
  reason: string;
}

function arnToken(bucket: s3.Bucket): string {
  const stack = Stack.of(bucket);
  return `<${stack.resolve((bucket.node.defaultChild as CfnElement).logicalId) as string}.Arn>`;
}

/** Every acknowledgement, per construct, so tests can list them. */
export function acknowledgements(t: NagTargets): Array<[IConstruct, Acknowledgement[]]> {
  const noAccessLogs =
    'Server access logs are not kept: readers are only CloudFront (origin access control) and the function role, and the ' +
    "only writer is the operator's publish, whose report lists every object written. Account-wide CloudTrail S3 data " +
    'events are the audit trail where one is required (docs/DEPLOY.md).';
  return [
    [t.siteBucket, [{ id: 'AwsSolutions-S1', reason: noAccessLogs }]],
    [
      t.saltBucket,
      [
        {
          id: 'AwsSolutions-S1',
          reason: `${noAccessLogs} A log of salt reads would also outlive the salts it describes.`,
        },
      ],
    ],
    [
      t.functionPolicy,
      [
        {
          id: `AwsSolutions-IAM5[Resource::${arnToken(t.siteBucket)}/v/*]`,
          reason:
            'Read-only access to the published versions: objects live under v/<version>/ and the version changes every week, so no narrower ARN can name them.',
        },
        {
          id: `AwsSolutions-IAM5[Resource::${arnToken(t.saltBucket)}/private/salt/*]`,
          reason:
            'One salt object per UTC day (private/salt/<YYYY-MM-DD>), created by whichever instance needs it first; the day is not known in advance.',
        },
      ],
    ],
    [
      t.rotatorPolicy,
      [
        {
          id: `AwsSolutions-IAM5[Resource::${arnToken(t.saltBucket)}/private/salt/*]`,
          reason:
            "The rotator reads or creates today's and tomorrow's salt object (private/salt/<YYYY-MM-DD>); the days are not known in advance.",
        },
      ],
    ],
    [
      t.originSecret,
      [
        {
          id: 'AwsSolutions-SMG4',
          reason:
            'The origin secret must change in CloudFront and in the function in a fixed order (function accepts old and new, then ' +
            'CloudFront sends the new, then the old is dropped), which a Secrets Manager rotation function cannot do; the operator ' +
            'rotates it with two deploys (docs/DEPLOY.md, "Rotating the origin secret").',
        },
      ],
    ],
    [
      t.distribution,
      [
        {
          id: 'AwsSolutions-CFR1',
          reason:
            'No geo restriction: the callers (people and the AI assistants acting for them) may be anywhere; blocking countries protects nothing here.',
        },
        {
          id: 'AwsSolutions-CFR3',
          reason:
            "CloudFront standard logs would store every viewer's raw IP address, which the privacy rules forbid (docs/CONTRACT.md). The function writes " +
            'one line per request with a one-day salted hash instead, and CloudFront/WAF metrics give the counts.',
        },
        ...(t.customCertificate
          ? []
          : [
              {
                id: 'AwsSolutions-CFR4',
                reason:
                  'Without a custom domain the distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the ' +
                  'security policy at TLSv1; with -c domainNames=... -c certificateArn=... it is TLSv1.2_2021 and this finding does not occur.',
              },
            ]),
      ],
    ],
  ];
}

/** Acknowledge every justified finding on its construct. */
export function acknowledgeJustifiedFindings(t: NagTargets): void {
  for (const [construct, list] of acknowledgements(t)) {
    for (const ack of list) Validations.of(construct).acknowledge(ack);
  }
}
