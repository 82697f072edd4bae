/**
 * The CloudFront distribution: published site objects from S3 (origin access control), the function's documents cached
 * as the function's Cache-Control says, search answers (/v1/attorneys) cached until the next publish on the normalised
 * query, and /r/*, /mcp passed through uncached. WAF (the web ACL) runs before the cache: it counts hits and misses alike.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER, VIEWER_HOST_HEADER } from '../shim/edge/env.ts';
import { ANSWER_ORIGIN_HEADERS, answerPolicies } from './answer-cache.ts';

/**
 * Paths served from the bucket as published: the pointer only. Nothing under `v/` has a bucket route: an older version
 * kept for rollback or audit still holds the listings a standing removal took out since, and versions are immutable, so
 * they are never purged from it. The served version's objects (VERSION_OBJECT_PATHS) go through the function, which
 * answers them for the served version alone and 404 for any other.
 */
export const SITE_PATHS = ['/current.json'] as const;
/**
 * The public audit (docs/AUDIT.md): the served version's published objects (meta, manifest, cell tree, listings and
 * firm documents, coverage, changes, measurement data), each as stored and checked against its recorded sha256. The
 * function answers only the served version's (`s-maxage=0`: CloudFront asks it again each time), so once a release
 * applies a removal no older version's objects are answered. CloudFront's `*` matches across slashes.
 */
export const VERSION_OBJECT_PATHS = ['/v/*'] as const;
/** Function paths never cached: redirects (each click is counted by the function). */
export const UNCACHED_PATHS = ['/r/*'] as const;
/** Function paths whose answers depend on the query: cached on the normalised query until the next publish. */
export const ANSWER_PATHS = ['/v1/attorneys'] as const;
/**
 * Function documents that take query parameters (a firm read with the person's lat and lng): cached like documents,
 * but keyed on the query string, which reaches the function (it refuses parameters it does not know).
 */
export const FIRM_PATHS = ['/v1/firms/*'] as const;
/** Function paths that are whole documents, cached for as long as the function's Cache-Control allows. */
export const DOCUMENT_PATHS = [
  '/v1/coverage',
  '/v1/changes',
  '/openapi.json',
  '/problems/*',
  '/terms',
  '/favicon.ico',
  '/robots.txt',
  '/.well-known/security.txt',
] as const;
/**
 * Pages for people, cached as documents (the function sets their CSP and security headers). `/` stays on the default
 * behaviour: it answers HTML or JSON by the Accept header, which the document cache policy does not key on.
 */
export const PAGE_PATHS = ['/docs', '/corrections', '/metros/*', '/assets/*'] as const;
/** Response headers a browser script may read. */
export const EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Directory-Version'];

/** What the distribution fronts. */
export interface CdnProps {
  siteBucket: s3.IBucket;
  functionUrl: lambda.IFunctionUrl;
  /** Value CloudFront sends in X-Origin-Verify (a dynamic reference). */
  originSecret: string;
  webAclArn: string;
  /** Viewer-request function of the cached function paths: host copy, query normalisation, edge request log. */
  viewerRequest: cloudfront.IFunction;
  /** Custom domain names and an ACM certificate in us-east-1 covering them. */
  domain?: { names: string[]; certificateArn: string };
}

/** Distribution, its policies and the viewer-request function. */
export class Cdn extends Construct {
  readonly distribution: cloudfront.Distribution;

  constructor(scope: Construct, id: string, props: CdnProps) {
    super(scope, id);

    const oac = new cloudfront.S3OriginAccessControl(this, 'SiteOac', {
      description: 'CloudFront reads the pointer of the published site',
      signing: cloudfront.Signing.SIGV4_ALWAYS,
    });
    // withBucketDefaults + our own bucket policy: the CDK helper would grant the whole bucket, we grant the site paths only.
    const siteOrigin = origins.S3BucketOrigin.withBucketDefaults(props.siteBucket, {
      originAccessControlId: oac.originAccessControlId,
    });

    // Auth NONE plus a secret header for every function path: POST /mcp through OAC would need a body hash MCP
    // clients never send, and one rule for all paths keeps one origin and one check.
    const functionOrigin = new origins.FunctionUrlOrigin(props.functionUrl, {
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret },
      readTimeout: Duration.seconds(15),
    });

    // The Function URL sees its own host name; the links in answers need the one the viewer used.
    const viewerHost = new cloudfront.Function(this, 'ViewerHost', {
      comment: `Copy the viewer Host into ${VIEWER_HOST_HEADER} for the function`,
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      code: cloudfront.FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var request = event.request;',
          `  request.headers['${VIEWER_HOST_HEADER}'] = { value: request.headers.host ? request.headers.host.value : '' };`,
          '  return request;',
          '}',
        ].join('\n'),
      ),
    });
    const functionAssociations = [{ function: viewerHost, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }];

    const security: cloudfront.ResponseSecurityHeadersBehavior = {
      contentTypeOptions: { override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: false },
      frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
    };
    const publicCors: cloudfront.ResponseHeadersCorsBehavior = {
      accessControlAllowCredentials: false,
      // Preflights for function paths are answered by the function (it allows what the browser asks for); this
      // covers the S3 paths, where any request header is harmless too.
      accessControlAllowHeaders: ['*'],
      accessControlAllowMethods: ['GET', 'HEAD', 'OPTIONS'],
      accessControlAllowOrigins: ['*'],
      accessControlExposeHeaders: EXPOSED_HEADERS,
      accessControlMaxAge: Duration.days(1),
      originOverride: false,
    };
    const publicHeaders = new cloudfront.ResponseHeadersPolicy(this, 'PublicHeaders', {
      comment: 'CORS for public reads (the function sets its own; this covers S3 objects) and security headers',
      corsBehavior: publicCors,
      securityHeadersBehavior: security,
    });
    // /mcp answers CORS only for configured origins (the function decides), so no CORS policy here.
    const mcpHeaders = new cloudfront.ResponseHeadersPolicy(this, 'McpHeaders', {
      comment: 'Security headers for /mcp; CORS is decided by the function',
      securityHeadersBehavior: security,
    });

    const documentCache = new cloudfront.CachePolicy(this, 'DocumentCache', {
      comment: 'Function documents: cached as long as their Cache-Control says, not at all without one',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(1),
      // Documents take no parameters: a query string must neither split the cache nor reach the function.
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      // Their links are built on the viewer host, so two custom domains must not share one cached copy.
      headerBehavior: cloudfront.CacheHeaderBehavior.allowList(VIEWER_HOST_HEADER),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const documentOriginRequest = new cloudfront.OriginRequestPolicy(this, 'DocumentOriginRequest', {
      comment:
        'Function documents: as /v1/attorneys misses (host for links, address and user agent for the log, CORS preflight)',
      headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(...ANSWER_ORIGIN_HEADERS),
      queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.none(),
      cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
    });

    // A firm read takes lat and lng: the same document policy, keyed on the query string and forwarding it.
    const firmCache = new cloudfront.CachePolicy(this, 'FirmCache', {
      comment: 'Firm documents: as function documents, keyed on the query string (the lat and lng of the person)',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.days(1),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.all(),
      headerBehavior: cloudfront.CacheHeaderBehavior.allowList(VIEWER_HOST_HEADER),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const firmOriginRequest = new cloudfront.OriginRequestPolicy(this, 'FirmOriginRequest', {
      comment: 'Firm documents: as function documents, with the query string (refused by the function when unknown)',
      headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(...ANSWER_ORIGIN_HEADERS),
      queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.all(),
      cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
    });

    const uncached: cloudfront.BehaviorOptions = {
      origin: functionOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      // Every viewer header but Host (the Function URL needs its own), plus the CloudFront-* headers such as
      // CloudFront-Viewer-Address, all query strings and cookies.
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: publicHeaders,
      functionAssociations,
      compress: true,
    };
    // Cached paths log at the edge: the function sees only misses.
    const edgeLogged = [{ function: props.viewerRequest, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }];
    const document: cloudfront.BehaviorOptions = {
      ...uncached,
      cachePolicy: documentCache,
      originRequestPolicy: documentOriginRequest,
      functionAssociations: edgeLogged,
    };
    const answers = answerPolicies(this, publicCors, security);
    const answer: cloudfront.BehaviorOptions = { ...uncached, ...answers, functionAssociations: edgeLogged };
    const site: cloudfront.BehaviorOptions = {
      origin: siteOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: publicHeaders,
      compress: true,
    };
    const mcp: cloudfront.BehaviorOptions = {
      ...uncached,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      responseHeadersPolicy: mcpHeaders,
    };

    const additionalBehaviors: Record<string, cloudfront.BehaviorOptions> = { '/mcp': mcp };
    for (const path of UNCACHED_PATHS) additionalBehaviors[path] = uncached;
    for (const path of ANSWER_PATHS) additionalBehaviors[path] = answer;
    for (const path of DOCUMENT_PATHS) additionalBehaviors[path] = document;
    for (const path of FIRM_PATHS)
      additionalBehaviors[path] = { ...document, cachePolicy: firmCache, originRequestPolicy: firmOriginRequest };
    for (const path of PAGE_PATHS) additionalBehaviors[path] = document;
    for (const path of VERSION_OBJECT_PATHS) additionalBehaviors[path] = document;
    for (const path of SITE_PATHS) additionalBehaviors[path] = site;

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Injury attorney directory',
      // Unknown paths reach the function, which answers a 404 problem (S3 would answer 403 XML).
      defaultBehavior: uncached,
      additionalBehaviors,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      // Evaluated before the cache, so every request counts against the per-address limit, hit or miss.
      webAclId: props.webAclArn,
      // A 5xx is about one moment: never served from the cache to anyone else (CloudFront would otherwise keep error
      // answers 10 seconds). A 429 is about one caller: CloudFront never caches that status, and it says no-store.
      errorResponses: [500, 502, 503, 504].map((httpStatus) => ({ httpStatus, ttl: Duration.seconds(0) })),
      ...(props.domain !== undefined
        ? {
            // Only a custom certificate takes a security policy; the default *.cloudfront.net one is fixed by AWS.
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            domainNames: props.domain.names,
            certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
          }
        : {}),
    });

    const distributionArn = Stack.of(this).formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution',
      resourceName: this.distribution.distributionId,
    });
    const cloudFront = new iam.ServicePrincipal('cloudfront.amazonaws.com');
    const fromThisDistribution = { StringEquals: { 'AWS:SourceArn': distributionArn } };
    props.siteBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontReadsPublishedSite',
        principals: [cloudFront],
        actions: ['s3:GetObject'],
        resources: SITE_PATHS.map((p) => props.siteBucket.arnForObjects(p.slice(1))),
        conditions: fromThisDistribution,
      }),
    );
    // So a missing object under /v/ is a 404, not a 403. Listing itself is unreachable: CloudFront forwards no query string to S3.
    props.siteBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontSeesMissingKeys',
        principals: [cloudFront],
        actions: ['s3:ListBucket'],
        resources: [props.siteBucket.bucketArn],
        conditions: fromThisDistribution,
      }),
    );
  }
}
