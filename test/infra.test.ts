/**
 * The CDK stack as CloudFormation: every resource and policy the AWS path needs, checked on the template the real
 * synthesiser writes; cdk-nag's AwsSolutions checks pass with only the acknowledged findings, and are shown to be
 * active by a stack that breaks a rule on purpose.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleLambda, LAMBDA_NODE_TARGET } from '../infra/bundle.ts';
import { bundleSaltRotator } from '../infra/rotator-bundle.ts';
import { cdkJsonContext } from '../infra/context.ts';
import { acknowledgements } from '../infra/nag.ts';
import { DirectoryStack, type DirectoryStackProps } from '../infra/stack.ts';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
/**
 * What a cached function path's miss forwards: the host for links, the address and user agent for the log, Accept
 * (error pages for browsers) and what a CORS preflight asks.
 */
const FUNCTION_ORIGIN_HEADERS = [
  'x-viewer-host',
  'CloudFront-Viewer-Address',
  'User-Agent',
  'Accept',
  'Origin',
  'Access-Control-Request-Method',
  'Access-Control-Request-Headers',
];

let work: string;
let codeDir: string;
let rotatorCodeDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'iad-infra-'));
  codeDir = (await bundleLambda(join(work, 'bundle'))).dir;
  rotatorCodeDir = (await bundleSaltRotator(join(work, 'rotator'))).dir;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** Whether a synthesized WAF statement (Or, And, ByteMatch on UriPath or Body) matches a request's path and body. */
function wafMatches(statement: Json, path: string, body: string): boolean {
  if (statement.OrStatement !== undefined)
    return ((statement.OrStatement as Json).Statements as Json[]).some((s) => wafMatches(s, path, body));
  if (statement.AndStatement !== undefined)
    return ((statement.AndStatement as Json).Statements as Json[]).every((s) => wafMatches(s, path, body));
  const match = statement.ByteMatchStatement as
    { FieldToMatch: Json; PositionalConstraint: string; SearchString: string } | undefined;
  if (match === undefined) throw new Error(`statement not modelled: ${Object.keys(statement).join()}`);
  const field = match.FieldToMatch.UriPath !== undefined ? path : match.FieldToMatch.Body !== undefined ? body : null;
  if (field === null) throw new Error('field not modelled');
  switch (match.PositionalConstraint) {
    case 'STARTS_WITH':
      return field.startsWith(match.SearchString);
    case 'EXACTLY':
      return field === match.SearchString;
    case 'CONTAINS':
      return field.includes(match.SearchString);
    default:
      throw new Error(`constraint not modelled: ${match.PositionalConstraint}`);
  }
}

/** A fresh app with the nag plugin, the stack in it, and the template from the real synthesiser. */
function synth(props: Partial<DirectoryStackProps> = {}): {
  app: App;
  stack: DirectoryStack;
  template: Template;
  json: string;
} {
  const app = new App({ outdir: join(work, `out-${n++}`), context: cdkJsonContext() });
  const stack = new DirectoryStack(app, 'Directory', {
    env: { region: 'us-east-1' },
    codeDir,
    rotatorCodeDir,
    ...props,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth(); // throws when cdk-nag reports an unacknowledged finding
  const template = Template.fromStack(stack);
  return { app, stack, template, json: JSON.stringify(template.toJSON()) };
}

type Json = Record<string, unknown>;
function only(template: Template, type: string, props: Json = {}): Json {
  const found = template.findResources(type, props);
  expect(Object.keys(found), type).toHaveLength(1);
  return Object.values(found)[0] as Json;
}
function logicalId(template: Template, type: string, props: Json = {}): string {
  const found = template.findResources(type, props);
  expect(Object.keys(found), type).toHaveLength(1);
  return Object.keys(found)[0] as string;
}
const arnOf = (id: string): Json => ({ 'Fn::GetAtt': [id, 'Arn'] });
/** The logical id of a construct's CloudFormation resource. */
function idOf(stack: Stack, construct: IConstruct): string {
  return stack.resolve((construct.node.defaultChild as CfnElement).logicalId) as string;
}
/** The resource of a construct in the template. */
function resourceOf(template: Template, stack: Stack, construct: IConstruct): Json {
  return (template.toJSON().Resources as Record<string, Json>)[idOf(stack, construct)] as Json;
}
const objectsOf = (id: string, suffix: string): Json => ({ 'Fn::Join': ['', [arnOf(id), suffix]] });

describe('default deployment', () => {
  let t: ReturnType<typeof synth>;
  let siteBucket: string;
  let saltBucket: string;
  beforeAll(() => {
    t = synth();
    siteBucket = logicalId(t.template, 'AWS::S3::Bucket', {
      Properties: { VersioningConfiguration: { Status: 'Enabled' } },
    });
    saltBucket = logicalId(t.template, 'AWS::S3::Bucket', { Properties: { VersioningConfiguration: Match.absent() } });
  });

  it('has exactly the expected resources', () => {
    const counts: Record<string, number> = {
      'AWS::S3::Bucket': 2,
      'AWS::S3::BucketPolicy': 2,
      'AWS::SecretsManager::Secret': 1,
      // The function's, the edge function's and the salt rotator's.
      'AWS::Logs::LogGroup': 3,
      'AWS::IAM::Role': 2,
      'AWS::IAM::Policy': 2,
      'AWS::Lambda::Function': 2,
      'AWS::Lambda::Url': 1,
      // The Function URL's public invoke (two, as CDK writes it) and the schedule's.
      'AWS::Lambda::Permission': 3,
      'AWS::Events::Rule': 1,
      'AWS::WAFv2::WebACL': 1,
      'AWS::CloudFront::Distribution': 1,
      'AWS::CloudFront::OriginAccessControl': 1,
      'AWS::CloudFront::Function': 2,
      'AWS::CloudFront::KeyValueStore': 1,
      'AWS::CloudFront::CachePolicy': 3,
      'AWS::CloudFront::OriginRequestPolicy': 3,
      'AWS::CloudFront::ResponseHeadersPolicy': 3,
    };
    for (const [type, count] of Object.entries(counts)) t.template.resourceCountIs(type, count);
    // No custom resources (their Lambda functions would need their own review).
    expect(t.json).not.toContain('Custom::');
  });

  it('both buckets are private, encrypted, owner-enforced and TLS-only', () => {
    for (const id of [siteBucket, saltBucket]) {
      const bucket = t.template.toJSON().Resources[id] as Json;
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      expect(bucket.DeletionPolicy).toBe('Retain');
      t.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
            }),
          ]),
        },
      });
    }
  });

  it('the site bucket is versioned; noncurrent versions and stray salts expire', () => {
    const rules = ((t.template.toJSON().Resources[siteBucket] as Json).Properties as Json).LifecycleConfiguration as {
      Rules: Json[];
    };
    expect(rules.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Status: 'Enabled',
          NoncurrentVersionExpiration: { NoncurrentDays: 30 },
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        }),
        expect.objectContaining({ Status: 'Enabled', ExpiredObjectDeleteMarker: true }),
        expect.objectContaining({
          Status: 'Enabled',
          Prefix: 'private/salt/',
          ExpirationInDays: 1,
          NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        }),
      ]),
    );
  });

  it('the salt bucket is unversioned and expires private/salt/ after 1 day (gone within 48 hours)', () => {
    t.template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: Match.absent(),
      LifecycleConfiguration: { Rules: [{ Status: 'Enabled', Prefix: 'private/salt/', ExpirationInDays: 1 }] },
    });
  });

  it('CloudFront reads only current.json of the site bucket, and only this distribution', () => {
    const distribution = logicalId(t.template, 'AWS::CloudFront::Distribution');
    const policy = only(t.template, 'AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: siteBucket } } });
    const statements = ((policy.Properties as Json).PolicyDocument as { Statement: Json[] }).Statement.filter(
      (s) => s.Effect === 'Allow',
    );
    const sourceArn = {
      StringEquals: {
        'AWS:SourceArn': Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: distribution }])] }),
      },
    };
    expect(statements).toHaveLength(2);
    expect(
      Match.objectLike({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: objectsOf(siteBucket, '/current.json'),
        Condition: sourceArn,
      }).test(statements[0]).isSuccess,
    ).toBe(true);
    // No object under v/ is readable by CloudFront: an older version still names listings removed since.
    expect(JSON.stringify(statements)).not.toContain('/v/');
    expect(
      Match.objectLike({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:ListBucket',
        Resource: arnOf(siteBucket),
        Condition: sourceArn,
      }).test(statements[1]).isSuccess,
    ).toBe(true);
    expect(JSON.stringify(statements)).not.toContain('private/salt');
    // The salt bucket's policy only denies (TLS); nobody but the function role is granted anything.
    const saltPolicy = only(t.template, 'AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: saltBucket } } });
    expect(
      ((saltPolicy.Properties as Json).PolicyDocument as { Statement: Json[] }).Statement.every(
        (s) => s.Effect === 'Deny',
      ),
    ).toBe(true);
  });

  it('the function role has one inline policy with exactly the least privilege it needs', () => {
    const role = resourceOf(t.template, t.stack, t.stack.api.role);
    expect((role.Properties as Json).ManagedPolicyArns).toBeUndefined();
    expect((role.Properties as Json).Policies).toBeUndefined();
    const roleId = idOf(t.stack, t.stack.api.role);
    const logs = idOf(t.stack, t.stack.api.logGroup);
    const policy = resourceOf(t.template, t.stack, t.stack.api.policy);
    expect((policy.Properties as Json).Roles).toEqual([{ Ref: roleId }]);
    expect(((policy.Properties as Json).PolicyDocument as Json).Statement).toEqual([
      // The minimizePolicies feature flag sorts resources.
      {
        Sid: 'ReadPublishedSite',
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: [objectsOf(siteBucket, '/current.json'), objectsOf(siteBucket, '/v/*')],
      },
      { Sid: 'MissingSiteKeysAre404', Effect: 'Allow', Action: 's3:ListBucket', Resource: arnOf(siteBucket) },
      {
        Sid: 'DailySalt',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: objectsOf(saltBucket, '/private/salt/*'),
      },
      { Sid: 'MissingSaltIs404', Effect: 'Allow', Action: 's3:ListBucket', Resource: arnOf(saltBucket) },
      { Sid: 'OwnLogs', Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: arnOf(logs) },
    ]);
    // The assume-role trust is Lambda's alone.
    expect((role.Properties as Json).AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
    });
  });

  it('the Lambda runtime is the Node the bundle targets and CI tests; engines and @types/node cover it', () => {
    const fn = resourceOf(t.template, t.stack, t.stack.api.fn);
    const major = LAMBDA_NODE_TARGET.replace(/^node/, '');
    expect((fn.Properties as Json).Runtime).toBe(`nodejs${major}.x`);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(pkg.engines.node).toMatch(new RegExp(`\\^${major}\\.`));
    // @types/node is the oldest supported Node's, so code cannot use an API that Node lacks.
    const oldest = /^\^(\d+)\./.exec(pkg.engines.node)?.[1];
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${oldest}\\.`));
    expect(readFileSync('.ci/run', 'utf8')).toContain(`node_bin ${major}`);
    expect(readFileSync('.ci/run', 'utf8')).toContain('node_bin 22');
  });

  it('the function: Node 24 on arm64, 512 MB, its own log group kept 30 days, environment from the stack', () => {
    const logs = idOf(t.stack, t.stack.api.logGroup);
    expect(resourceOf(t.template, t.stack, t.stack.api.logGroup).Properties).toMatchObject({ RetentionInDays: 30 });
    const fn = resourceOf(t.template, t.stack, t.stack.api.fn);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 10,
      Handler: 'index.handler',
      LoggingConfig: { LogGroup: { Ref: logs } },
      Environment: {
        Variables: {
          SITE_BUCKET: { Ref: siteBucket },
          SALT_BUCKET: { Ref: saltBucket },
          RATE_LIMIT_PER_HOUR: '600',
          RATE_LIMIT_WINDOW_SECONDS: '600',
        },
      },
    });
    const variables = ((fn.Properties as Json).Environment as { Variables: Json }).Variables;
    expect(variables.PUBLIC_BASE_URL).toBeUndefined();
    expect(JSON.stringify(variables.ORIGIN_VERIFY_SECRETS)).toMatch(
      /^\{"Fn::Join":\["",\["\{\{resolve:secretsmanager:",\{"Ref":"OriginSecret[0-9A-F]+"\},":SecretString:::\}\}"\]\]\}$/,
    );
    // The policy exists before the function can run.
    expect(fn.DependsOn).toEqual(expect.arrayContaining([idOf(t.stack, t.stack.api.policy)]));
  });

  it('the Function URL has auth NONE (the handler checks the origin secret) and buffered responses', () => {
    t.template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', InvokeMode: 'BUFFERED' });
  });

  it('the origin secret is generated by Secrets Manager and only referenced, never written into the template', () => {
    t.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true, IncludeSpace: false },
    });
    expect(t.json).not.toMatch(/"SecretString":"/);
  });

  it('WAF: CLOUDFRONT scope, 100 per 600 s per IP (600 per hour), 429 problem body with Retry-After and the policy it enforces', () => {
    const acl = only(t.template, 'AWS::WAFv2::WebACL');
    const props = acl.Properties as Json;
    expect(props).toMatchObject({
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
    const rules = props.Rules as Json[];
    // The answer quota, then the ceiling on every request (issue 25: protocol messages and pages spend no answer).
    expect(rules).toHaveLength(2);
    expect(rules[0]).toMatchObject({
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 100, EvaluationWindowSec: 600 } },
      Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rate_limited_problem' } } },
      VisibilityConfig: { SampledRequestsEnabled: false },
    });
    const headers = (
      (((rules[0] as Json).Action as Json).Block as Json).CustomResponse as {
        ResponseHeaders: Array<{ Name: string; Value: string }>;
      }
    ).ResponseHeaders;
    const byName = Object.fromEntries(headers.map((h) => [h.Name.toLowerCase(), h.Value]));
    // The advertised policy is the enforced one: 100 requests per 600 s window, as the function advertises too.
    expect(byName).toMatchObject({
      'retry-after': '600',
      'ratelimit-policy': '"600s";q=100;w=600',
      ratelimit: '"600s";r=0;t=600',
      'access-control-allow-origin': '*',
    });
    const bodies = props.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    expect(bodies.rate_limited_problem?.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(bodies.rate_limited_problem?.Content as string)).toMatchObject({
      type: '/problems/rate_limited',
      status: 429,
      code: 'rate_limited',
      title: 'Too many requests',
    });
    // And the distribution is protected by it.
    const dist = only(t.template, 'AWS::CloudFront::Distribution');
    expect(((dist.Properties as Json).DistributionConfig as Json).WebACLId).toEqual(
      arnOf(logicalId(t.template, 'AWS::WAFv2::WebACL')),
    );
  });

  it('WAF: the answer rule counts API paths and MCP tool calls only; every request counts toward a ceiling of 1,000 per 600 s', () => {
    const rules = (only(t.template, 'AWS::WAFv2::WebACL').Properties as Json).Rules as Json[];
    const [answers, all] = rules as [Json, Json];
    const scope = ((answers.Statement as Json).RateBasedStatement as Json).ScopeDownStatement as Json;
    const counts = (path: string, body = ''): boolean => wafMatches(scope, path, body);
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'find_injury_attorneys', arguments: { location: '60601' } },
    });
    for (const path of [
      '/v1/attorneys',
      '/v1/firms/l_aaaaaaaaaaaaaaaa',
      '/v1/coverage',
      '/v1/nope',
      '/r/l_aaaaaaaaaaaaaaaa',
    ])
      expect(counts(path), path).toBe(true);
    expect(counts('/mcp', call)).toBe(true);
    expect(counts('/mcp', `[${call},${call}]`)).toBe(true);
    for (const method of ['initialize', 'notifications/initialized', 'tools/list', 'ping']) {
      expect(counts('/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method })), method).toBe(false);
    }
    expect(counts('/mcp')).toBe(false);
    for (const path of [
      '/',
      '/docs',
      '/metros/chicago',
      '/assets/site.css',
      '/favicon.ico',
      '/robots.txt',
      '/.well-known/security.txt',
      '/openapi.json',
      '/terms',
      '/problems/rate_limited',
      '/v/x/meta.json',
    ]) {
      expect(counts(path), path).toBe(false);
    }
    // A body larger than WAF inspects counts, so padding cannot hide a tool call.
    expect(JSON.stringify(scope)).toContain('"OversizeHandling":"MATCH"');

    expect(all).toMatchObject({
      Priority: 1,
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 1000, EvaluationWindowSec: 600 } },
      Action: {
        Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'all_requests_limited_problem' } },
      },
    });
    expect((all.Statement as { RateBasedStatement: Json }).RateBasedStatement.ScopeDownStatement).toBeUndefined();
    const headers = (
      ((all.Action as Json).Block as Json).CustomResponse as { ResponseHeaders: Array<{ Name: string; Value: string }> }
    ).ResponseHeaders;
    expect(Object.fromEntries(headers.map((h) => [h.Name.toLowerCase(), h.Value]))).toMatchObject({
      'retry-after': '600',
      'ratelimit-policy': '"600s";q=100;w=600, "all-600s";q=1000;w=600',
      ratelimit: '"all-600s";r=0;t=600',
    });
  });

  describe('CloudFront', () => {
    let config: Json;
    let behaviors: Record<string, Json>;
    let functionOrigin: string;
    let siteOrigin: string;
    beforeAll(() => {
      config = (only(t.template, 'AWS::CloudFront::Distribution').Properties as Json).DistributionConfig as Json;
      behaviors = Object.fromEntries((config.CacheBehaviors as Json[]).map((b) => [b.PathPattern as string, b]));
      const origins = config.Origins as Json[];
      functionOrigin = origins.find((o) => o.CustomOriginConfig !== undefined)?.Id as string;
      siteOrigin = origins.find((o) => o.S3OriginConfig !== undefined)?.Id as string;
    });

    it('two origins: the Function URL with the secret header over TLS 1.2, the bucket through origin access control', () => {
      const origins = config.Origins as Json[];
      expect(origins).toHaveLength(2);
      const fnOrigin = origins.find((o) => o.Id === functionOrigin) as Json;
      expect(fnOrigin.CustomOriginConfig).toMatchObject({
        OriginProtocolPolicy: 'https-only',
        OriginSSLProtocols: ['TLSv1.2'],
      });
      expect(JSON.stringify(fnOrigin.DomainName)).toContain(logicalId(t.template, 'AWS::Lambda::Url'));
      const headers = fnOrigin.OriginCustomHeaders as Array<{ HeaderName: string; HeaderValue: unknown }>;
      expect(headers.map((h) => h.HeaderName)).toEqual(['x-origin-verify']);
      expect(JSON.stringify(headers[0]?.HeaderValue)).toContain('{{resolve:secretsmanager:');
      const s3Origin = origins.find((o) => o.Id === siteOrigin) as Json;
      expect(s3Origin.OriginAccessControlId).toEqual({
        'Fn::GetAtt': [logicalId(t.template, 'AWS::CloudFront::OriginAccessControl'), 'Id'],
      });
      t.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: {
          OriginAccessControlOriginType: 's3',
          SigningBehavior: 'always',
          SigningProtocol: 'sigv4',
        },
      });
    });

    it('redirects and MCP go to the function uncached with every viewer header but Host', () => {
      for (const path of ['/r/*', '/mcp']) {
        expect(behaviors[path], path).toMatchObject({
          TargetOriginId: functionOrigin,
          CachePolicyId: CACHING_DISABLED,
          OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        });
      }
      expect(config.DefaultCacheBehavior).toMatchObject({
        TargetOriginId: functionOrigin,
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      });
    });

    it('/v1/attorneys is cached until the next publish, keyed on the whole (normalised) query and the viewer host, gzip and brotli', () => {
      const policyOf = (construct: IConstruct): Json => ({ Ref: idOf(t.stack, construct) });
      const answer = behaviors['/v1/attorneys'] as Json;
      const cachePolicy = t.stack.cdn.node.findChild('AnswerCache');
      expect(answer).toMatchObject({
        TargetOriginId: functionOrigin,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS'],
        Compress: true,
        CachePolicyId: policyOf(cachePolicy),
        OriginRequestPolicyId: policyOf(t.stack.cdn.node.findChild('AnswerOriginRequest')),
        ResponseHeadersPolicyId: policyOf(t.stack.cdn.node.findChild('AnswerHeaders')),
      });
      expect(resourceOf(t.template, t.stack, cachePolicy).Properties).toEqual({
        CachePolicyConfig: {
          Comment: expect.any(String),
          Name: expect.any(String),
          MinTTL: 0,
          DefaultTTL: 0,
          // The answer's s-maxage: a week, the publishing cadence; the publish invalidates /v1/attorneys* sooner.
          MaxTTL: 604800,
          ParametersInCacheKeyAndForwardedToOrigin: {
            QueryStringsConfig: { QueryStringBehavior: 'all' },
            HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['x-viewer-host'] },
            CookiesConfig: { CookieBehavior: 'none' },
            EnableAcceptEncodingGzip: true,
            EnableAcceptEncodingBrotli: true,
          },
        },
      });
      expect(
        resourceOf(t.template, t.stack, t.stack.cdn.node.findChild('AnswerOriginRequest')).Properties,
      ).toMatchObject({
        OriginRequestPolicyConfig: {
          HeadersConfig: {
            HeaderBehavior: 'whitelist',
            Headers: FUNCTION_ORIGIN_HEADERS,
          },
          QueryStringsConfig: { QueryStringBehavior: 'all' },
          CookiesConfig: { CookieBehavior: 'none' },
        },
      });
    });

    it('cached answers lose the per-caller RateLimit count at the edge and keep CORS and the policy header', () => {
      const policy = resourceOf(t.template, t.stack, t.stack.cdn.node.findChild('AnswerHeaders')).Properties as Json;
      const config = policy.ResponseHeadersPolicyConfig as Json;
      expect(config.RemoveHeadersConfig).toEqual({ Items: [{ Header: 'RateLimit' }] });
      expect(config.CorsConfig).toMatchObject({
        AccessControlAllowOrigins: { Items: ['*'] },
        AccessControlExposeHeaders: {
          Items: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Directory-Version'],
        },
      });
      expect(JSON.stringify(config)).not.toContain('RateLimit-Policy"}');
    });

    it('WAF is associated with the distribution, so it runs before the cache and counts hits and misses alike', () => {
      expect(config.WebACLId).toEqual(arnOf(logicalId(t.template, 'AWS::WAFv2::WebACL')));
      // No behaviour can bypass it: WAF is per distribution, not per behaviour.
      expect(JSON.stringify(config.CacheBehaviors)).not.toContain('WebACL');
    });

    it('a 5xx is never kept by the edge cache for other callers (a 429 is not a status CloudFront caches)', () => {
      expect(config.CustomErrorResponses).toEqual(
        [500, 502, 503, 504].map((code) => ({ ErrorCode: code, ErrorCachingMinTTL: 0 })),
      );
    });

    it('firm documents are cached like documents but keyed on the query string, which reaches the function (lat, lng)', () => {
      const cachePolicy = idOf(t.stack, t.stack.cdn.node.findChild('FirmCache'));
      const originRequest = idOf(t.stack, t.stack.cdn.node.findChild('FirmOriginRequest'));
      expect(behaviors['/v1/firms/*']).toMatchObject({
        TargetOriginId: functionOrigin,
        CachePolicyId: { Ref: cachePolicy },
        OriginRequestPolicyId: { Ref: originRequest },
      });
      const policies = t.template.findResources('AWS::CloudFront::CachePolicy');
      expect((policies[cachePolicy]?.Properties as Json).CachePolicyConfig as Json).toMatchObject({
        MinTTL: 0,
        DefaultTTL: 0,
        MaxTTL: 86400,
        ParametersInCacheKeyAndForwardedToOrigin: {
          QueryStringsConfig: { QueryStringBehavior: 'all' },
          HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['x-viewer-host'] },
        },
      });
      const requests = t.template.findResources('AWS::CloudFront::OriginRequestPolicy');
      expect((requests[originRequest]?.Properties as Json).OriginRequestPolicyConfig as Json).toMatchObject({
        QueryStringsConfig: { QueryStringBehavior: 'all' },
      });
    });

    it('POST is allowed on /mcp (HTTPS only, no redirect that would turn a POST into a GET) and nowhere else', () => {
      expect(behaviors['/mcp']).toMatchObject({
        AllowedMethods: expect.arrayContaining(['POST']),
        ViewerProtocolPolicy: 'https-only',
      });
      for (const [path, b] of Object.entries(behaviors))
        if (path !== '/mcp') expect(b.AllowedMethods, path).not.toContain('POST');
    });

    it('function documents are cached as the function says (min 0, default 0, max 1 day) per viewer host, with no query string, and get CORS preflight headers', () => {
      const cachePolicy = idOf(t.stack, t.stack.cdn.node.findChild('DocumentCache'));
      const originRequest = idOf(t.stack, t.stack.cdn.node.findChild('DocumentOriginRequest'));
      for (const path of [
        '/v1/coverage',
        '/openapi.json',
        '/problems/*',
        '/terms',
        '/docs',
        '/corrections',
        '/metros/*',
        '/assets/*',
      ]) {
        expect(behaviors[path], path).toMatchObject({
          TargetOriginId: functionOrigin,
          CachePolicyId: { Ref: cachePolicy },
          OriginRequestPolicyId: { Ref: originRequest },
        });
      }
      t.template.hasResourceProperties('AWS::CloudFront::CachePolicy', {
        CachePolicyConfig: {
          MinTTL: 0,
          DefaultTTL: 0,
          MaxTTL: 86400,
          ParametersInCacheKeyAndForwardedToOrigin: {
            QueryStringsConfig: { QueryStringBehavior: 'none' },
            // Links in documents name the viewer host: one cached copy per host.
            HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['x-viewer-host'] },
            CookiesConfig: { CookieBehavior: 'none' },
            EnableAcceptEncodingGzip: true,
            EnableAcceptEncodingBrotli: true,
          },
        },
      });
      t.template.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
        OriginRequestPolicyConfig: {
          // A CORS preflight on a document reaches the function with what the browser asks.
          HeadersConfig: {
            HeaderBehavior: 'whitelist',
            Headers: Match.arrayEquals(FUNCTION_ORIGIN_HEADERS),
          },
          QueryStringsConfig: { QueryStringBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
        },
      });
    });

    it("a browser's 404, 429 or 503 is the HTML page on AWS too: every function path forwards Accept, no cache key holds it", () => {
      const resources = t.template.toJSON().Resources as Record<string, Json>;
      const headersOf = (ref: unknown, type: string, config: string): string[] => {
        const id = (ref as { Ref?: string }).Ref;
        if (id === undefined) return [];
        const resource = resources[id] as Json;
        expect(resource.Type).toBe(type);
        const props = (resource.Properties as Json)[config] as Json;
        const headers = ((props.ParametersInCacheKeyAndForwardedToOrigin as Json | undefined) ?? props)
          .HeadersConfig as { Headers?: string[] };
        return (headers.Headers ?? []).map((h) => h.toLowerCase());
      };
      const functionBehaviors = [
        ['default', config.DefaultCacheBehavior as Json] as const,
        ...Object.entries(behaviors),
      ].filter(([, b]) => b.TargetOriginId === functionOrigin);
      expect(functionBehaviors.length).toBeGreaterThan(15);
      for (const [path, b] of functionBehaviors) {
        const originRequest = b.OriginRequestPolicyId;
        // The managed policy forwards every viewer header but Host; our own ones name Accept.
        if (originRequest !== ALL_VIEWER_EXCEPT_HOST_HEADER)
          expect(
            headersOf(originRequest, 'AWS::CloudFront::OriginRequestPolicy', 'OriginRequestPolicyConfig'),
            path,
          ).toContain('accept');
        // Only problems differ by Accept, and none is shared (see the 5xx test; a 404 says no-store): one cached copy.
        if (b.CachePolicyId !== CACHING_DISABLED)
          expect(headersOf(b.CachePolicyId, 'AWS::CloudFront::CachePolicy', 'CachePolicyConfig'), path).not.toContain(
            'accept',
          );
      }
    });

    it('the pointer comes from S3, cached, read-only; every /v/ object (the public audit) from the function, which answers the served version only', () => {
      expect(behaviors['/current.json']).toMatchObject({
        TargetOriginId: siteOrigin,
        CachePolicyId: CACHING_OPTIMIZED,
        AllowedMethods: ['GET', 'HEAD'],
      });
      expect(behaviors['/current.json']?.FunctionAssociations).toBeUndefined();
      // An older version's objects name listings a standing removal took out since: S3 would serve them for every
      // version kept, so the route goes to the function (a document, revalidated each time: s-maxage=0), which answers
      // the served version's objects (the public audit: cells, listings, firms, manifest, measurement) and 404 others.
      expect(behaviors['/v/*']).toMatchObject({
        TargetOriginId: functionOrigin,
        CachePolicyId: behaviors['/v1/coverage']?.CachePolicyId,
      });
      // No bucket route under /v/: only the function, which knows the served version, answers there.
      expect(Object.keys(behaviors).filter((p) => p.startsWith('/v/'))).toEqual(['/v/*']);
      expect(
        Object.entries(behaviors)
          .filter(([, b]) => b.TargetOriginId === siteOrigin)
          .map(([p]) => p),
      ).toEqual(['/current.json']);
      expect((config.DefaultCacheBehavior as Json).TargetOriginId).not.toEqual(siteOrigin);
      expect(Object.keys(behaviors).sort()).toEqual([
        '/.well-known/security.txt',
        '/assets/*',
        '/corrections',
        '/current.json',
        '/docs',
        '/favicon.ico',
        '/mcp',
        '/metros/*',
        '/openapi.json',
        '/problems/*',
        '/r/*',
        '/robots.txt',
        '/terms',
        '/v/*',
        '/v1/attorneys',
        '/v1/changes',
        '/v1/coverage',
        '/v1/firms/*',
      ]);
    });

    it('every function path copies the viewer Host for links; cached paths do it in the edge-logging function', () => {
      const hostFn = t.stack.cdn.node.findChild('ViewerHost');
      const edgeFn = t.stack.edgeLog.viewerRequest;
      const arn = (c: IConstruct): Json => ({ 'Fn::GetAtt': [idOf(t.stack, c), 'FunctionARN'] });
      const cached = [
        '/v1/attorneys',
        '/v1/firms/*',
        '/v1/coverage',
        '/v1/changes',
        '/openapi.json',
        '/problems/*',
        '/terms',
        '/favicon.ico',
        '/robots.txt',
        '/.well-known/security.txt',
        '/docs',
        '/corrections',
        '/metros/*',
        '/assets/*',
        '/v/*',
      ];
      for (const [path, b] of Object.entries(behaviors).filter(([, b]) => b.TargetOriginId === functionOrigin)) {
        expect(b.FunctionAssociations, path).toEqual([
          { EventType: 'viewer-request', FunctionARN: arn(cached.includes(path) ? edgeFn : hostFn) },
        ]);
      }
      expect((config.DefaultCacheBehavior as Json).FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: arn(hostFn) },
      ]);
      const hostCode = (resourceOf(t.template, t.stack, hostFn).Properties as Json).FunctionCode as string;
      expect(hostCode).toContain("request.headers['x-viewer-host'] = { value:");
      expect(JSON.stringify((resourceOf(t.template, t.stack, edgeFn).Properties as Json).FunctionCode)).toContain(
        'request.headers[VIEWER_HOST_HEADER] = { value:',
      );
    });

    it('the edge function: cloudfront-js-2.0, published, reading the salt store, its code with the store id filled in', () => {
      const props = resourceOf(t.template, t.stack, t.stack.edgeLog.viewerRequest).Properties as Json;
      const kvs = idOf(t.stack, t.stack.edgeLog.store);
      expect(props).toMatchObject({
        AutoPublish: true,
        FunctionConfig: { Runtime: 'cloudfront-js-2.0', KeyValueStoreAssociations: [{ KeyValueStoreARN: arnOf(kvs) }] },
      });
      const code = JSON.stringify(props.FunctionCode);
      expect(code).not.toContain('__KVS_ID__');
      expect(code).toContain(JSON.stringify({ 'Fn::GetAtt': [kvs, 'Id'] }));
    });

    it("the edge log group is the one CloudFront writes the function's lines to, kept 30 days", () => {
      const group = resourceOf(t.template, t.stack, t.stack.edgeLog.functionLogGroup).Properties as Json;
      expect(group.RetentionInDays).toBe(30);
      const name = (resourceOf(t.template, t.stack, t.stack.edgeLog.viewerRequest).Properties as Json).Name as string;
      expect(group.LogGroupName).toBe(`/aws/cloudfront/function/${name}`);
    });

    it('the salt rotator runs hourly with least privilege: the store, the salt objects, its own logs', () => {
      t.template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 hour)',
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: arnOf(idOf(t.stack, t.stack.edgeLog.rotator)) })],
      });
      const fn = resourceOf(t.template, t.stack, t.stack.edgeLog.rotator).Properties as Json;
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: {
          Variables: {
            SALT_BUCKET: { Ref: saltBucket },
            EDGE_SALT_KVS_ARN: arnOf(idOf(t.stack, t.stack.edgeLog.store)),
          },
        },
      });
      const policy = resourceOf(t.template, t.stack, t.stack.edgeLog.rotatorPolicy).Properties as Json;
      const statements = (policy.PolicyDocument as { Statement: Json[] }).Statement;
      expect(statements.map((st) => st.Sid)).toEqual(['EdgeSaltStore', 'DailySalt', 'MissingSaltIs404', 'OwnLogs']);
      expect(statements[0]).toMatchObject({ Resource: arnOf(idOf(t.stack, t.stack.edgeLog.store)) });
      expect(statements[1]).toMatchObject({
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: objectsOf(saltBucket, '/private/salt/*'),
      });
      expect(JSON.stringify(statements)).not.toContain(siteBucket);
    });

    it('CORS response headers for public reads; /mcp leaves CORS to the function', () => {
      const policies = t.template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
      const cors = Object.entries(policies).find(([, p]) => JSON.stringify(p).includes('CorsConfig'));
      expect(cors).toBeDefined();
      expect(((cors?.[1].Properties as Json).ResponseHeadersPolicyConfig as Json).CorsConfig).toMatchObject({
        AccessControlAllowOrigins: { Items: ['*'] },
        AccessControlAllowMethods: { Items: ['GET', 'HEAD', 'OPTIONS'] },
        AccessControlExposeHeaders: {
          Items: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Directory-Version'],
        },
        AccessControlAllowCredentials: false,
        OriginOverride: false,
      });
      const corsRef = { Ref: cors?.[0] };
      for (const path of ['/r/*', '/v1/firms/*', '/v1/coverage', '/openapi.json', '/v/*', '/current.json']) {
        expect(behaviors[path]?.ResponseHeadersPolicyId, path).toEqual(corsRef);
      }
      expect(behaviors['/mcp']?.ResponseHeadersPolicyId).not.toEqual(corsRef);
    });

    it('HTTP/2 and 3, IPv6, no access logs (they would store raw addresses)', () => {
      expect(config).toMatchObject({ HttpVersion: 'http2and3', IPV6Enabled: true, Enabled: true });
      expect(config.Logging).toBeUndefined();
    });
  });

  it('cdk-nag AwsSolutions: no finding left, and every acknowledgement says why', () => {
    const report = new AwsSolutionsChecks(t.app).validateScope(t.stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
    expect(report.success).toBe(true);
    const acknowledged = acknowledgements({
      siteBucket: t.stack.storage.siteBucket,
      saltBucket: t.stack.storage.saltBucket,
      functionPolicy: t.stack.api.policy,
      rotatorPolicy: t.stack.edgeLog.rotatorPolicy,
      originSecret: t.stack.originSecret.secret,
      distribution: t.stack.cdn.distribution,
      customCertificate: false,
    }).flatMap(([, list]) => list);
    expect(acknowledged.map((a) => a.id.replace(/\[.*$/, '')).sort()).toEqual([
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR3',
      'AwsSolutions-CFR4',
      'AwsSolutions-IAM5',
      'AwsSolutions-IAM5',
      'AwsSolutions-IAM5',
      'AwsSolutions-S1',
      'AwsSolutions-S1',
      'AwsSolutions-SMG4',
    ]);
    for (const a of acknowledged) expect(a.reason.length, a.id).toBeGreaterThan(80);
  });
});

describe('options', () => {
  it('a custom domain: aliases, TLS 1.2 certificate, PUBLIC_BASE_URL, and CFR4 no longer needs acknowledging', () => {
    const t = synth({
      domain: {
        names: ['directory.example.org'],
        certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/0d5f2c6a-1111-2222-3333-444455556666',
      },
    });
    const config = (only(t.template, 'AWS::CloudFront::Distribution').Properties as Json).DistributionConfig as Json;
    expect(config).toMatchObject({
      Aliases: ['directory.example.org'],
      ViewerCertificate: { MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
    });
    t.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PUBLIC_BASE_URL: 'https://directory.example.org' }) },
    });
    expect(new AwsSolutionsChecks(t.app).validateScope(t.stack).success).toBe(true);
  });

  it('a secret rotation: CloudFront sends the new version, the function accepts new and old', () => {
    const t = synth({ originSecretVersionIds: ['11111111-new', '22222222-old'] });
    const config = (only(t.template, 'AWS::CloudFront::Distribution').Properties as Json).DistributionConfig as Json;
    const sent = JSON.stringify((config.Origins as Json[]).find((o) => o.OriginCustomHeaders !== undefined));
    expect(sent).toContain(':SecretString:::11111111-new}}');
    expect(sent).not.toContain('22222222-old');
    const fn = resourceOf(t.template, t.stack, t.stack.api.fn);
    const accepted = JSON.stringify(
      (((fn.Properties as Json).Environment as Json).Variables as Json).ORIGIN_VERIFY_SECRETS,
    );
    expect(accepted).toContain(':SecretString:::11111111-new}},{{resolve:secretsmanager:');
    expect(accepted).toContain(':SecretString:::22222222-old}}');
  });

  it('refuses any region but us-east-1 (a CLOUDFRONT-scope web ACL lives there)', () => {
    expect(
      () => new DirectoryStack(new App(), 'Elsewhere', { env: { region: 'eu-west-1' }, codeDir, rotatorCodeDir }),
    ).toThrow(/us-east-1/);
  });
});

describe('cdk-nag is active', () => {
  it('a bucket without SSL enforcement is reported (AwsSolutions-S10) and fails the synth', () => {
    const app = new App({ outdir: join(work, 'broken'), context: cdkJsonContext() });
    const stack = new Stack(app, 'Broken', { env: { region: 'us-east-1' } });
    const bucket = new s3.Bucket(stack, 'NoSsl', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Test bucket: only the SSL finding is under test here.',
    });
    const pack = new AwsSolutionsChecks(app);
    const report = pack.validateScope(stack);
    const rules = report.violations.map((v) => v.ruleName);
    expect(rules).toContain('AwsSolutions-S10');
    expect(rules).not.toContain('AwsSolutions-S1');
    Validations.of(app).addPlugins(pack);
    expect(() => app.synth()).toThrow(/AwsSolutions-S10|[Vv]alidation/);
  });

  it('without its acknowledgements the directory stack reports exactly the acknowledged findings (none is stale)', () => {
    const app = new App();
    const bare = new DirectoryStack(app, 'Bare', {
      env: { region: 'us-east-1' },
      codeDir,
      rotatorCodeDir,
      withoutNagAcknowledgements: true,
    });
    const reported = new AwsSolutionsChecks(app)
      .validateScope(bare)
      .violations.map((v) => v.ruleName.replace(/<[^>]+>/g, '<ARN>'))
      .sort();
    const acknowledged = acknowledgements({
      siteBucket: bare.storage.siteBucket,
      saltBucket: bare.storage.saltBucket,
      functionPolicy: bare.api.policy,
      rotatorPolicy: bare.edgeLog.rotatorPolicy,
      originSecret: bare.originSecret.secret,
      distribution: bare.cdn.distribution,
      customCertificate: false,
    })
      .flatMap(([, list]) => list.map((a) => a.id.replace(/<[^>]+>/g, '<ARN>')))
      .filter((id, i, all) => all.indexOf(id) === i)
      .sort();
    expect(reported).toEqual(acknowledged);
    expect(reported).toContain('AwsSolutions-CFR3');
  });
});
