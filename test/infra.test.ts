/**
 * The CDK stack as CloudFormation: every resource and policy the AWS path needs, checked on the template the real
 * synthesiser writes; cdk-nag's AwsSolutions checks pass with only the acknowledged findings, and are shown to be
 * active by a stack that breaks a rule on purpose.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleLambda, LAMBDA_NODE_TARGET } from '../infra/bundle.ts';
import { cdkJsonContext } from '../infra/context.ts';
import { acknowledgements } from '../infra/nag.ts';
import { DirectoryStack, type DirectoryStackProps } from '../infra/stack.ts';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let work: string;
let codeDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'iad-infra-'));
  codeDir = (await bundleLambda(join(work, 'bundle'))).dir;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A fresh app with the nag plugin, the stack in it, and the template from the real synthesiser. */
function synth(props: Partial<DirectoryStackProps> = {}): { app: App; stack: DirectoryStack; template: Template; json: string } {
  const app = new App({ outdir: join(work, `out-${n++}`), context: cdkJsonContext() });
  const stack = new DirectoryStack(app, 'Directory', { env: { region: 'us-east-1' }, codeDir, ...props });
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
const objectsOf = (id: string, suffix: string): Json => ({ 'Fn::Join': ['', [arnOf(id), suffix]] });

describe('default deployment', () => {
  let t: ReturnType<typeof synth>;
  let siteBucket: string;
  let saltBucket: string;
  beforeAll(() => {
    t = synth();
    siteBucket = logicalId(t.template, 'AWS::S3::Bucket', { Properties: { VersioningConfiguration: { Status: 'Enabled' } } });
    saltBucket = logicalId(t.template, 'AWS::S3::Bucket', { Properties: { VersioningConfiguration: Match.absent() } });
  });

  it('has exactly the expected resources', () => {
    const counts: Record<string, number> = {
      'AWS::S3::Bucket': 2,
      'AWS::S3::BucketPolicy': 2,
      'AWS::SecretsManager::Secret': 1,
      'AWS::Logs::LogGroup': 1,
      'AWS::IAM::Role': 1,
      'AWS::IAM::Policy': 1,
      'AWS::Lambda::Function': 1,
      'AWS::Lambda::Url': 1,
      'AWS::WAFv2::WebACL': 1,
      'AWS::CloudFront::Distribution': 1,
      'AWS::CloudFront::OriginAccessControl': 1,
      'AWS::CloudFront::Function': 1,
      'AWS::CloudFront::CachePolicy': 1,
      'AWS::CloudFront::OriginRequestPolicy': 1,
      'AWS::CloudFront::ResponseHeadersPolicy': 2,
    };
    for (const [type, count] of Object.entries(counts)) t.template.resourceCountIs(type, count);
    // No custom resources (their Lambda functions would need their own review).
    expect(t.json).not.toContain('Custom::');
  });

  it('both buckets are private, encrypted, owner-enforced and TLS-only', () => {
    for (const id of [siteBucket, saltBucket]) {
      const bucket = t.template.toJSON().Resources[id] as Json;
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      expect(bucket.DeletionPolicy).toBe('Retain');
      t.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
          ]),
        },
      });
    }
  });

  it('the site bucket is versioned; noncurrent versions and stray salts expire', () => {
    const rules = ((t.template.toJSON().Resources[siteBucket] as Json).Properties as Json).LifecycleConfiguration as { Rules: Json[] };
    expect(rules.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 30 }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        expect.objectContaining({ Status: 'Enabled', ExpiredObjectDeleteMarker: true }),
        expect.objectContaining({ Status: 'Enabled', Prefix: 'private/salt/', ExpirationInDays: 1, NoncurrentVersionExpiration: { NoncurrentDays: 1 } }),
      ]),
    );
  });

  it('the salt bucket is unversioned and expires private/salt/ after 1 day (gone within 48 hours)', () => {
    t.template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: Match.absent(),
      LifecycleConfiguration: { Rules: [{ Status: 'Enabled', Prefix: 'private/salt/', ExpirationInDays: 1 }] },
    });
  });

  it('CloudFront reads only v/* and current.json of the site bucket, and only this distribution', () => {
    const distribution = logicalId(t.template, 'AWS::CloudFront::Distribution');
    const policy = only(t.template, 'AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: siteBucket } } });
    const statements = ((policy.Properties as Json).PolicyDocument as { Statement: Json[] }).Statement.filter((s) => s.Effect === 'Allow');
    const sourceArn = { StringEquals: { 'AWS:SourceArn': Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: distribution }])] }) } };
    expect(statements).toHaveLength(2);
    expect(Match.objectLike({ Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:GetObject', Resource: Match.arrayEquals([objectsOf(siteBucket, '/current.json'), objectsOf(siteBucket, '/v/*')]), Condition: sourceArn }).test(statements[0]).isSuccess).toBe(true);
    expect(Match.objectLike({ Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:ListBucket', Resource: arnOf(siteBucket), Condition: sourceArn }).test(statements[1]).isSuccess).toBe(true);
    expect(JSON.stringify(statements)).not.toContain('private/salt');
    // The salt bucket's policy only denies (TLS); nobody but the function role is granted anything.
    const saltPolicy = only(t.template, 'AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: saltBucket } } });
    expect(((saltPolicy.Properties as Json).PolicyDocument as { Statement: Json[] }).Statement.every((s) => s.Effect === 'Deny')).toBe(true);
  });

  it('the function role has one inline policy with exactly the least privilege it needs', () => {
    const role = only(t.template, 'AWS::IAM::Role');
    expect((role.Properties as Json).ManagedPolicyArns).toBeUndefined();
    expect((role.Properties as Json).Policies).toBeUndefined();
    const roleId = logicalId(t.template, 'AWS::IAM::Role');
    const logs = logicalId(t.template, 'AWS::Logs::LogGroup');
    const policy = only(t.template, 'AWS::IAM::Policy');
    expect((policy.Properties as Json).Roles).toEqual([{ Ref: roleId }]);
    expect(((policy.Properties as Json).PolicyDocument as Json).Statement).toEqual([
      // The minimizePolicies feature flag sorts resources.
      { Sid: 'ReadPublishedSite', Effect: 'Allow', Action: 's3:GetObject', Resource: [objectsOf(siteBucket, '/current.json'), objectsOf(siteBucket, '/v/*')] },
      { Sid: 'MissingSiteKeysAre404', Effect: 'Allow', Action: 's3:ListBucket', Resource: arnOf(siteBucket) },
      { Sid: 'DailySalt', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: objectsOf(saltBucket, '/private/salt/*') },
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
    const fn = only(t.template, 'AWS::Lambda::Function');
    const major = LAMBDA_NODE_TARGET.replace(/^node/, '');
    expect((fn.Properties as Json).Runtime).toBe(`nodejs${major}.x`);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(pkg.engines.node).toMatch(new RegExp(`\\^${major}\\.`));
    // @types/node is the oldest supported Node's, so code cannot use an API that Node lacks.
    const oldest = /^\^(\d+)\./.exec(pkg.engines.node)?.[1];
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${oldest}\\.`));
    expect(readFileSync('.ci/run', 'utf8')).toContain(`node_bin ${major}`);
    expect(readFileSync('.ci/run', 'utf8')).toContain('node_bin 22');
  });

  it('the function: Node 24 on arm64, 512 MB, its own log group kept 30 days, environment from the stack', () => {
    const logs = logicalId(t.template, 'AWS::Logs::LogGroup');
    t.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    const fn = only(t.template, 'AWS::Lambda::Function');
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 10,
      Handler: 'index.handler',
      LoggingConfig: { LogGroup: { Ref: logs } },
      Environment: { Variables: { SITE_BUCKET: { Ref: siteBucket }, SALT_BUCKET: { Ref: saltBucket }, RATE_LIMIT_PER_HOUR: '600', RATE_LIMIT_WINDOW_SECONDS: '600' } },
    });
    const variables = ((fn.Properties as Json).Environment as { Variables: Json }).Variables;
    expect(variables.PUBLIC_BASE_URL).toBeUndefined();
    expect(JSON.stringify(variables.ORIGIN_VERIFY_SECRETS)).toMatch(/^\{"Fn::Join":\["",\["\{\{resolve:secretsmanager:",\{"Ref":"OriginSecret[0-9A-F]+"\},":SecretString:::\}\}"\]\]\}$/);
    // The policy exists before the function can run.
    expect(fn.DependsOn).toEqual(expect.arrayContaining([logicalId(t.template, 'AWS::IAM::Policy')]));
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
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 100, EvaluationWindowSec: 600 } },
      Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rate_limited_problem' } } },
      VisibilityConfig: { SampledRequestsEnabled: false },
    });
    const headers = ((((rules[0] as Json).Action as Json).Block as Json).CustomResponse as { ResponseHeaders: Array<{ Name: string; Value: string }> }).ResponseHeaders;
    const byName = Object.fromEntries(headers.map((h) => [h.Name.toLowerCase(), h.Value]));
    // The advertised policy is the enforced one: 100 requests per 600 s window, as the function advertises too.
    expect(byName).toMatchObject({ 'retry-after': '600', 'ratelimit-policy': '"600s";q=100;w=600', ratelimit: '"600s";r=0;t=600', 'access-control-allow-origin': '*' });
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
    expect(((dist.Properties as Json).DistributionConfig as Json).WebACLId).toEqual(arnOf(logicalId(t.template, 'AWS::WAFv2::WebACL')));
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
      expect(fnOrigin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
      expect(JSON.stringify(fnOrigin.DomainName)).toContain(logicalId(t.template, 'AWS::Lambda::Url'));
      const headers = fnOrigin.OriginCustomHeaders as Array<{ HeaderName: string; HeaderValue: unknown }>;
      expect(headers.map((h) => h.HeaderName)).toEqual(['x-origin-verify']);
      expect(JSON.stringify(headers[0]?.HeaderValue)).toContain('{{resolve:secretsmanager:');
      const s3Origin = origins.find((o) => o.Id === siteOrigin) as Json;
      expect(s3Origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [logicalId(t.template, 'AWS::CloudFront::OriginAccessControl'), 'Id'] });
      t.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
      });
    });

    it('per-query paths go to the function uncached with every viewer header but Host', () => {
      for (const path of ['/v1/attorneys', '/r/*', '/mcp']) {
        expect(behaviors[path], path).toMatchObject({
          TargetOriginId: functionOrigin,
          CachePolicyId: CACHING_DISABLED,
          OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        });
      }
      expect(config.DefaultCacheBehavior).toMatchObject({ TargetOriginId: functionOrigin, CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER });
      expect(behaviors['/v1/attorneys']?.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS']);
    });

    it('POST is allowed on /mcp (HTTPS only, no redirect that would turn a POST into a GET) and nowhere else', () => {
      expect(behaviors['/mcp']).toMatchObject({ AllowedMethods: expect.arrayContaining(['POST']), ViewerProtocolPolicy: 'https-only' });
      for (const [path, b] of Object.entries(behaviors)) if (path !== '/mcp') expect(b.AllowedMethods, path).not.toContain('POST');
    });

    it('function documents are cached as the function says (min 0, default 0, max 1 day) with no query string', () => {
      const cachePolicy = logicalId(t.template, 'AWS::CloudFront::CachePolicy');
      const originRequest = logicalId(t.template, 'AWS::CloudFront::OriginRequestPolicy');
      for (const path of ['/v1/firms/*', '/v1/coverage', '/openapi.json', '/problems/*', '/terms', '/docs', '/corrections', '/metros/*', '/assets/*']) {
        expect(behaviors[path], path).toMatchObject({ TargetOriginId: functionOrigin, CachePolicyId: { Ref: cachePolicy }, OriginRequestPolicyId: { Ref: originRequest } });
      }
      t.template.hasResourceProperties('AWS::CloudFront::CachePolicy', {
        CachePolicyConfig: {
          MinTTL: 0,
          DefaultTTL: 0,
          MaxTTL: 86400,
          ParametersInCacheKeyAndForwardedToOrigin: {
            QueryStringsConfig: { QueryStringBehavior: 'none' },
            HeadersConfig: { HeaderBehavior: 'none' },
            CookiesConfig: { CookieBehavior: 'none' },
            EnableAcceptEncodingGzip: true,
            EnableAcceptEncodingBrotli: true,
          },
        },
      });
      t.template.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
        OriginRequestPolicyConfig: {
          HeadersConfig: { HeaderBehavior: 'whitelist', Headers: Match.arrayEquals(['x-viewer-host', 'CloudFront-Viewer-Address']) },
          QueryStringsConfig: { QueryStringBehavior: 'none' },
          CookiesConfig: { CookieBehavior: 'none' },
        },
      });
    });

    it('published objects (/v/*, /current.json) come from S3, cached, read-only', () => {
      for (const path of ['/v/*', '/current.json']) {
        expect(behaviors[path], path).toMatchObject({ TargetOriginId: siteOrigin, CachePolicyId: CACHING_OPTIMIZED, AllowedMethods: ['GET', 'HEAD'] });
        expect(behaviors[path]?.FunctionAssociations).toBeUndefined();
      }
      expect(Object.keys(behaviors).sort()).toEqual([
        '/assets/*', '/corrections', '/current.json', '/docs', '/mcp', '/metros/*', '/openapi.json', '/problems/*', '/r/*', '/terms', '/v/*', '/v1/attorneys', '/v1/coverage', '/v1/firms/*',
      ]);
    });

    it('every function path copies the viewer Host for links; the CloudFront Function overwrites any header the viewer sent', () => {
      const fnArn = { 'Fn::GetAtt': [logicalId(t.template, 'AWS::CloudFront::Function'), 'FunctionARN'] };
      for (const b of [config.DefaultCacheBehavior as Json, ...Object.values(behaviors).filter((b) => b.TargetOriginId === functionOrigin)]) {
        expect(b.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: fnArn }]);
      }
      const code = ((only(t.template, 'AWS::CloudFront::Function').Properties as Json).FunctionCode as string);
      expect(code).toContain("request.headers['x-viewer-host'] = { value:");
    });

    it('CORS response headers for public reads; /mcp leaves CORS to the function', () => {
      const policies = t.template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
      const cors = Object.entries(policies).find(([, p]) => JSON.stringify(p).includes('CorsConfig'));
      expect(cors).toBeDefined();
      expect(((cors?.[1].Properties as Json).ResponseHeadersPolicyConfig as Json).CorsConfig).toMatchObject({
        AccessControlAllowOrigins: { Items: ['*'] },
        AccessControlAllowMethods: { Items: ['GET', 'HEAD', 'OPTIONS'] },
        AccessControlExposeHeaders: { Items: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Directory-Version'] },
        AccessControlAllowCredentials: false,
        OriginOverride: false,
      });
      const corsRef = { Ref: cors?.[0] };
      for (const path of ['/v1/attorneys', '/r/*', '/v1/firms/*', '/v1/coverage', '/openapi.json', '/v/*', '/current.json']) {
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
      'AwsSolutions-S1',
      'AwsSolutions-S1',
      'AwsSolutions-SMG4',
    ]);
    for (const a of acknowledged) expect(a.reason.length, a.id).toBeGreaterThan(80);
  });
});

describe('options', () => {
  it('a custom domain: aliases, TLS 1.2 certificate, PUBLIC_BASE_URL, and CFR4 no longer needs acknowledging', () => {
    const t = synth({ domain: { names: ['directory.example.org'], certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/0d5f2c6a-1111-2222-3333-444455556666' } });
    const config = (only(t.template, 'AWS::CloudFront::Distribution').Properties as Json).DistributionConfig as Json;
    expect(config).toMatchObject({
      Aliases: ['directory.example.org'],
      ViewerCertificate: { MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
    });
    t.template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ PUBLIC_BASE_URL: 'https://directory.example.org' }) } });
    expect(new AwsSolutionsChecks(t.app).validateScope(t.stack).success).toBe(true);
  });

  it('a secret rotation: CloudFront sends the new version, the function accepts new and old', () => {
    const t = synth({ originSecretVersionIds: ['11111111-new', '22222222-old'] });
    const config = (only(t.template, 'AWS::CloudFront::Distribution').Properties as Json).DistributionConfig as Json;
    const sent = JSON.stringify((config.Origins as Json[]).find((o) => o.OriginCustomHeaders !== undefined));
    expect(sent).toContain(':SecretString:::11111111-new}}');
    expect(sent).not.toContain('22222222-old');
    const fn = only(t.template, 'AWS::Lambda::Function');
    const accepted = JSON.stringify((((fn.Properties as Json).Environment as Json).Variables as Json).ORIGIN_VERIFY_SECRETS);
    expect(accepted).toContain(':SecretString:::11111111-new}},{{resolve:secretsmanager:');
    expect(accepted).toContain(':SecretString:::22222222-old}}');
  });

  it('refuses any region but us-east-1 (a CLOUDFRONT-scope web ACL lives there)', () => {
    expect(() => new DirectoryStack(new App(), 'Elsewhere', { env: { region: 'eu-west-1' }, codeDir })).toThrow(/us-east-1/);
  });
});

describe('cdk-nag is active', () => {
  it('a bucket without SSL enforcement is reported (AwsSolutions-S10) and fails the synth', () => {
    const app = new App({ outdir: join(work, 'broken'), context: cdkJsonContext() });
    const stack = new Stack(app, 'Broken', { env: { region: 'us-east-1' } });
    const bucket = new s3.Bucket(stack, 'NoSsl', { blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL, encryption: s3.BucketEncryption.S3_MANAGED });
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: 'Test bucket: only the SSL finding is under test here.' });
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
    const bare = new DirectoryStack(app, 'Bare', { env: { region: 'us-east-1' }, codeDir, withoutNagAcknowledgements: true });
    const reported = new AwsSolutionsChecks(app)
      .validateScope(bare)
      .violations.map((v) => v.ruleName.replace(/<[^>]+>/g, '<ARN>'))
      .sort();
    const acknowledged = acknowledgements({
      siteBucket: bare.storage.siteBucket,
      saltBucket: bare.storage.saltBucket,
      functionPolicy: bare.api.policy,
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
