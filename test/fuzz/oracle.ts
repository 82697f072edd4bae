/**
 * What every answer of the HTTP edge must satisfy, checked against an independent brute force over the site's files:
 * no 5xx, a problem+json with a `code` for every 4xx (or a JSON-RPC error on /mcp), and every search answer complete,
 * sorted by distance, within the radius and at most `limit` long. Returns violations as text; an empty list is a pass.
 */
import { latLngToCell } from 'h3-js';
import { ANSWER_PATH_PREFIXES } from '../../shim/http/admission.ts';
import { POISON_HOST, type FuzzCase } from './cases.ts';
import type { RawReply } from './raw-http.ts';
import type { SiteIndex } from './site-index.ts';

/** Mean Earth radius of the published contract, in miles. */
const R = 3958.8;
/** Distance slack for floating-point disagreement between two correct implementations, in miles. */
const EPS = 1e-6;
/** What a stack trace or internal path in a body looks like. */
const LEAK_RE =
  /\n\s+at\s|\bat [\w$.<>]+ \(|\.(?:ts|js|mjs):\d+:\d+|node:internal|node_modules|\bTypeError\b|\bReferenceError\b|StoreError|native code/;

function haversine(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Check one search body against the brute-force answer for its resolved point, radius and limit. */
export function checkSearch(
  site: SiteIndex,
  body: unknown,
  radiusSent: number | undefined,
  limitSent: number | undefined,
): string[] {
  if (!isObject(body) || !isObject(body.location) || !Array.isArray(body.results))
    return ['a 200 search body without location or results'];
  const lat = body.location.lat;
  const lng = body.location.lng;
  if (typeof lat !== 'number' || typeof lng !== 'number') return ['a 200 search body without a resolved point'];
  const radius = radiusSent ?? 15;
  const limit = limitSent ?? 10;
  const out: string[] = [];
  if (body.radius_miles_used !== radius)
    out.push(`radius_miles_used ${String(body.radius_miles_used)} but ${radius} was asked`);
  const covered = site.coveredCells.has(latLngToCell(lat, lng, site.coverageRes));
  if (body.covered !== covered)
    out.push(`covered is ${String(body.covered)} at ${lat},${lng}; the coverage cells say ${covered}`);
  const results = body.results as Json[];
  if (results.length > limit) out.push(`${results.length} results for limit ${limit}`);
  if (!covered) {
    if (results.length > 0 || body.firms_within_radius !== 0) out.push('an uncovered point has results');
    return out;
  }

  // Brute force: each firm's nearest office, over every office of the site.
  const nearest = new Map<string, number>();
  for (const o of site.offices) {
    const d = haversine(lat, lng, o.lat, o.lng);
    if (d > radius + EPS) continue;
    const best = nearest.get(o.firmId);
    if (best === undefined || d < best) nearest.set(o.firmId, d);
  }
  const firmsIn = [...nearest.values()];
  const strictCount = firmsIn.filter((d) => d <= radius - EPS).length;
  const fwr = body.firms_within_radius;
  if (typeof fwr !== 'number' || fwr < strictCount || fwr > firmsIn.length)
    out.push(`firms_within_radius ${String(fwr)}; brute force counts ${strictCount}..${firmsIn.length}`);
  const expected = Math.min(limit, strictCount);
  if (results.length < expected)
    out.push(
      `${results.length} results; brute force has ${expected} (limit ${limit}, ${strictCount} firms in ${radius} mi)`,
    );

  const seenFirms = new Set<string>();
  let previous = -Infinity;
  let farthest = -Infinity;
  for (const r of results) {
    const id = typeof r.listing_id === 'string' ? r.listing_id : '';
    const office = site.byListing.get(id);
    if (office === undefined) {
      out.push(`result ${id} is not an office of the site`);
      continue;
    }
    const d = haversine(lat, lng, office.lat, office.lng);
    if (d > radius + EPS) out.push(`result ${id} is ${d.toFixed(4)} mi away, outside ${radius} mi`);
    if (typeof r.distance_miles !== 'number' || Math.abs(r.distance_miles - d) > 0.0051)
      out.push(`result ${id} says ${String(r.distance_miles)} mi; it is ${d.toFixed(4)}`);
    if (typeof r.distance_miles === 'number') {
      if (r.distance_miles < previous)
        out.push(`results not sorted by distance: ${r.distance_miles} after ${previous}`);
      previous = r.distance_miles;
    }
    if (seenFirms.has(office.firmId)) out.push(`firm ${office.firmId} listed twice`);
    seenFirms.add(office.firmId);
    const best = nearest.get(office.firmId);
    if (best !== undefined && d > best + EPS)
      out.push(`result ${id} is not its firm's nearest office (${d.toFixed(4)} > ${best.toFixed(4)})`);
    farthest = Math.max(farthest, d);
  }
  if (results.length > 0) {
    for (const [firm, d] of nearest) {
      if (!seenFirms.has(firm) && d < farthest - EPS) {
        out.push(`firm ${firm} at ${d.toFixed(4)} mi is missing while a result at ${farthest.toFixed(4)} mi is listed`);
        break;
      }
    }
  }
  return out;
}

/** The target as the server read it: a raw CR or LF ends the request line (the rest becomes header lines). */
function effectiveTarget(c: FuzzCase): string {
  return c.request.target.split(/[\r\n]/)[0] ?? '';
}

/** The path the server routes the case's target to (dot segments resolved, as the WHATWG URL parser does). */
function servedPath(c: FuzzCase): string {
  try {
    return new URL(effectiveTarget(c), 'http://fuzz.invalid').pathname;
  } catch {
    return '';
  }
}

/** /mcp answers in MCP's terms, whichever generator made the case. */
function isMcpPath(c: FuzzCase): boolean {
  return effectiveTarget(c).split('?')[0] === '/mcp';
}

function problemViolations(reply: RawReply, json: unknown, c: FuzzCase): string[] {
  const type = reply.header('content-type') ?? '';
  // HEAD answers carry the headers of the GET answer without its body.
  if (c.request.method.toUpperCase() === 'HEAD' && type.startsWith('application/problem+json')) return [];
  if (type.startsWith('application/problem+json')) {
    if (!isObject(json) || typeof json.code !== 'string' || json.code === '')
      return [`${reply.status} problem+json without a code`];
    if (json.status !== reply.status) return [`${reply.status} problem+json says status ${String(json.status)}`];
    return [];
  }
  // A browser (an Accept naming text/html) meeting a 404, 429, 500 or 503 on GET or HEAD gets the site's error page.
  const method = c.request.method.toUpperCase();
  const accept = c.request.headers
    .filter(([name]) => name.toLowerCase() === 'accept')
    .map(([, value]) => value)
    .join(',');
  const page =
    (method === 'GET' || method === 'HEAD') &&
    [404, 429, 500, 503].includes(reply.status) &&
    accept.includes('text/html');
  if (page && type.startsWith('text/html') && (method === 'HEAD' || reply.body.toString('utf8').includes('<h1')))
    return [];
  // MCP's own transport errors are JSON-RPC error objects, which MCP clients read.
  if (
    isMcpPath(c) &&
    type.startsWith('application/json') &&
    isObject(json) &&
    isObject(json.error) &&
    typeof json.error.code === 'number'
  )
    return [];
  return [
    `${reply.status} with ${type === '' ? 'no content type' : type}${reply.body.length === 0 ? ' and no body' : ''}, not problem+json with a code`,
  ];
}

function queryOf(target: string): URLSearchParams | null {
  const q = target.indexOf('?');
  try {
    return new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  } catch {
    return null;
  }
}

function numberOr(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Parse a body as JSON, or the data lines of an event stream; undefined when it is neither. */
function parseBody(reply: RawReply): unknown {
  const text = reply.body.toString('utf8');
  if (text === '') return undefined;
  if ((reply.header('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as unknown);
    return data.length === 1 ? data[0] : data;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function checkMcpAnswers(site: SiteIndex, c: FuzzCase, json: unknown): string[] {
  const requests = (Array.isArray(c.rpc) ? c.rpc : [c.rpc]).filter(isObject);
  const answers = (Array.isArray(json) ? json : [json]).filter(isObject);
  const out: string[] = [];
  const ids = requests.map((m) => JSON.stringify(m.id));
  for (const answer of answers) {
    if (!isObject(answer.result) || !isObject(answer.result.structuredContent)) continue;
    const key = JSON.stringify(answer.id);
    if (ids.filter((i) => i === key).length !== 1) continue;
    const req = requests[ids.indexOf(key)];
    const params = isObject(req?.params) ? req.params : {};
    if (req?.method !== 'tools/call' || params.name !== 'find_injury_attorneys') continue;
    const args = isObject(params.arguments) ? params.arguments : {};
    out.push(
      ...checkSearch(site, answer.result.structuredContent, numberOr(args.radius_miles), numberOr(args.limit)).map(
        (v) => `tool call ${key}: ${v}`,
      ),
    );
  }
  return out;
}

/** Every violation of the edge's rules by `reply`, the answer to `c`; null means the server closed without answering. */
export function checkReply(site: SiteIndex, c: FuzzCase, reply: RawReply | null): string[] {
  if (reply === null) return ['the server closed the connection without an answer'];
  const out: string[] = [];
  const text = reply.body.toString('utf8');
  if (reply.status >= 500) out.push(`${reply.status} for a caller's request`);
  if (LEAK_RE.test(text)) out.push('a stack trace or internal name in the body');
  const everything = `${[...reply.headers.values()].flat().join('\n')}\n${text}`;
  if (everything.includes(POISON_HOST) && !c.request.target.includes(POISON_HOST))
    out.push(`the answer carries ${POISON_HOST} from a request header`);
  const json = parseBody(reply);
  if (reply.status >= 400) out.push(...problemViolations(reply, json, c));
  if (reply.status === 405 && reply.header('allow') === null) out.push('405 without Allow');
  const headOnly = c.request.method.toUpperCase() === 'HEAD';
  // A browser's 429 is the error page (text/html); every other 429 is problem+json with code rate_limited.
  const htmlPage = (reply.header('content-type') ?? '').startsWith('text/html');
  if (
    reply.status === 429 &&
    (!(Number(reply.header('retry-after')) > 0) ||
      (!headOnly && !htmlPage && (!isObject(json) || json.code !== 'rate_limited')))
  ) {
    out.push('429 without Retry-After or code rate_limited');
  }
  if (reply.status === 503 && !(Number(reply.header('retry-after')) > 0)) out.push('503 without Retry-After');

  const method = c.request.method.toUpperCase();
  const target = effectiveTarget(c);
  const path = target.split('?')[0] ?? '';
  if (reply.status === 200 && method === 'GET' && path === '/v1/attorneys') {
    const q = queryOf(target);
    out.push(...checkSearch(site, json, numberOr(q?.get('radius_miles')), numberOr(q?.get('limit'))));
  }
  if (reply.status === 302) {
    let id = path.slice('/r/'.length);
    try {
      id = decodeURIComponent(id);
    } catch {
      // An undecodable id can only be a violation below.
    }
    const location = reply.header('location') ?? '';
    const site_ = site.websites.get(id);
    let origin: string;
    try {
      origin = new URL(location).origin;
    } catch {
      origin = '';
    }
    if (!path.startsWith('/r/') || site_ === undefined || site_ === null || origin !== new URL(site_).origin) {
      out.push(`302 to ${JSON.stringify(location.slice(0, 100))}, not the listed site of ${id}`);
    }
  }
  if (reply.status === 200 && c.surface === 'mcp' && c.rpc !== undefined) out.push(...checkMcpAnswers(site, c, json));
  return out;
}

/**
 * A unit a successful answer must have cost: REST 2xx/3xx answers under /v1/ and /r/ one each (pages and documents
 * spend none), every answered tools/call one each.
 */
export function answeredUnits(c: FuzzCase, reply: RawReply | null): number {
  if (reply === null || reply.status >= 400) return 0;
  if (!isMcpPath(c)) {
    const answer = ANSWER_PATH_PREFIXES.some((prefix) => servedPath(c).startsWith(prefix));
    return answer && c.request.method.toUpperCase() !== 'OPTIONS' ? 1 : 0;
  }
  const json = parseBody(reply);
  const answers = (Array.isArray(json) ? json : [json]).filter(isObject);
  return answers.filter((a) => isObject(a.result) && Array.isArray(a.result.content)).length;
}
