/**
 * fast-check arbitraries of requests to the HTTP edge: REST searches (valid, mutated and hostile), other paths, odd
 * methods and headers, and MCP JSON-RPC messages and batches. A case is bytes on the wire plus what the oracle needs.
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.ts';
import type { SiteIndex } from './site-index.ts';

/** Placeholder in a Host header, replaced by the server's address when the case is sent. */
export const HOST_PLACEHOLDER = '{host}';
/** A host name that must never show up in an answer (cache poisoning through Host and X-Forwarded-Host). */
export const POISON_HOST = 'poison.invalid';

/** One fuzz case. */
export interface FuzzCase {
  surface: 'rest' | 'mcp';
  request: RawRequest;
  /** The parsed JSON-RPC body of an MCP case, when it is valid JSON. */
  rpc?: unknown;
}

/** Names of built-ins every plain object inherits: lookups keyed by caller input must not see them. */
export const OBJECT_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
  'propertyIsEnumerable',
  'toLocaleString',
] as const;

const STATES = ['IL', 'CA', 'TX', 'NY', 'MN', 'FL', 'WA', 'GA', 'AZ', 'OR'] as const;
const ACCEPTED = ['location', 'zip', 'lat', 'lng', 'radius_miles', 'limit', 'practice_area', 'src'] as const;
const TYPO_NAMES = [
  'radius',
  'q',
  'city',
  'latitude',
  'lon',
  'zipcode',
  'LOCATION',
  'Limit',
  'zip[]',
  'location[0]',
  'a.b',
  '',
] as const;
const TOOL_NAMES = ['find_injury_attorneys', 'get_firm', 'get_coverage'] as const;

/** City names that are object keys, in the forms people type. */
const keyCity: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...OBJECT_KEYS), fc.constantFrom(...STATES), fc.constantFrom(', ', ' ', ','))
    .map(([k, st, sep]) => `${k}${sep}${st}`),
  fc.constantFrom(
    'Con Structor TX',
    'constructor, IL',
    '__proto__, CA',
    'toString, NY',
    'Has Own Property, FL',
    'prototype MN',
    'constructor, constructor',
    '__proto__',
  ),
);

const decimal = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 7 }))
    .map(([v, d]) => v.toFixed(d));

const oddNumber: fc.Arbitrary<string> = fc.constantFrom(
  '',
  ' ',
  '0',
  '-0',
  '+5',
  '.5',
  '5.',
  '1e1',
  '0x10',
  'Infinity',
  '-Infinity',
  'NaN',
  ' 5',
  '5 ',
  '١٠',
  '10abc',
  '9'.repeat(400),
  '1'.repeat(20),
  '-1',
  '51',
  '26',
  '25.0',
  '2.5',
);

/** Text of every kind: printable, any code point, control bytes. */
const junk: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
  fc.string({ minLength: 150, maxLength: 400 }),
  fc.constantFrom(
    '\u0000',
    '\r\nX-Injected: 1',
    '\u001b[31m',
    '\u2028',
    '<script>alert(1)</script>',
    '{"a":1}',
    "' OR 1=1 --",
    '../../current.json',
  ),
);

/** The realistic location values: ZIPs, ZIP+4, cities, points (mostly near a measured metro), and object-key cities. */
function locations(site: SiteIndex): {
  zip: fc.Arbitrary<string>;
  city: fc.Arbitrary<string>;
  point: fc.Arbitrary<[string, string]>;
} {
  const zip = fc.constantFrom(...site.zips);
  const city = fc
    .tuple(fc.constantFrom(...site.cities), fc.constantFrom('same', 'lower', 'upper', 'nocomma', 'usa', 'spaces'))
    .map(([c, form]) => {
      switch (form) {
        case 'lower':
          return c.toLowerCase();
        case 'upper':
          return c.toUpperCase();
        case 'nocomma':
          return c.replace(',', '');
        case 'usa':
          return `${c}, USA`;
        case 'spaces':
          return `  ${c.replace(', ', ' ,  ')} `;
        default:
          return c;
      }
    });
  const near = fc
    .tuple(
      fc.constantFrom(...site.centres),
      fc.double({ min: -0.8, max: 0.8, noNaN: true }),
      fc.double({ min: -0.8, max: 0.8, noNaN: true }),
      fc.integer({ min: 0, max: 6 }),
    )
    .map(([c, dy, dx, d]): [string, string] => [(c.lat + dy).toFixed(d), (c.lng + dx).toFixed(d)]);
  const anywhere = fc.tuple(decimal(-90, 90), decimal(-180, 180));
  const us = fc.tuple(decimal(24, 49), decimal(-125, -67));
  return {
    zip,
    city,
    point: fc.oneof({ weight: 6, arbitrary: near }, { weight: 2, arbitrary: us }, { weight: 1, arbitrary: anywhere }),
  };
}

type Pair = [string, string];

/** The query parameters of a search that should mostly succeed. */
function goodSearch(site: SiteIndex): fc.Arbitrary<Pair[]> {
  const loc = locations(site);
  const form = fc.oneof(
    loc.zip.map((z): Pair[] => [['zip', z]]),
    fc
      .tuple(loc.zip, fc.constantFrom('', '-1234', ' 1234', '6789'))
      .map(([z, plus]): Pair[] => [['location', z + plus]]),
    loc.city.map((c): Pair[] => [['location', c]]),
    loc.point.map(([lat, lng]): Pair[] => [
      ['lat', lat],
      ['lng', lng],
    ]),
    loc.point.map(([lat, lng]): Pair[] => [['location', `${lat},${lng}`]]),
  );
  return fc
    .record({
      form,
      radius: fc.option(fc.oneof(decimal(1, 50), fc.integer({ min: 1, max: 50 }).map(String)), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 25 }).map(String), { nil: undefined }),
      src: fc.option(fc.constantFrom('fuzz', 'claude-desktop', 'a'.repeat(100)), { nil: undefined }),
      practice: fc.boolean(),
    })
    .map(({ form, radius, limit, src, practice }) => {
      const pairs: Pair[] = [...form];
      if (radius !== undefined) pairs.push(['radius_miles', radius]);
      if (limit !== undefined) pairs.push(['limit', limit]);
      if (src !== undefined) pairs.push(['src', src]);
      if (practice) pairs.push(['practice_area', 'personal_injury']);
      return pairs;
    });
}

/** Pairs a hostile caller adds: object keys as names or values, duplicates, unknown names, odd numbers, junk. */
function hostilePairs(site: SiteIndex): fc.Arbitrary<Pair[]> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ACCEPTED) },
    { weight: 3, arbitrary: fc.constantFrom(...OBJECT_KEYS) },
    { weight: 2, arbitrary: fc.constantFrom(...TYPO_NAMES) },
    { weight: 1, arbitrary: junk },
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: keyCity },
    { weight: 2, arbitrary: oddNumber },
    { weight: 2, arbitrary: locations(site).zip },
    { weight: 1, arbitrary: fc.constantFrom(...OBJECT_KEYS) },
    { weight: 2, arbitrary: junk },
  );
  return fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 });
}

/** How one query piece is written: percent-encoded, with + for spaces, raw, or with a broken escape. */
type Encoding = 'encoded' | 'plus' | 'raw' | 'broken';

function encodePart(text: string, how: Encoding): string {
  let out: string;
  try {
    out = encodeURIComponent(text);
  } catch {
    out = Buffer.from(text, 'utf8').toString('hex').replace(/(..)/g, '%$1');
  }
  switch (how) {
    case 'plus':
      return out.replace(/%20/g, '+');
    case 'raw':
      return text;
    case 'broken':
      return `${out}%${['zz', 'E0%A4', '0', 'C0%80', 'FF', ''][text.length % 6] ?? ''}`;
    default:
      return out;
  }
}

const encoding = fc.constantFrom<Encoding>(
  'encoded',
  'encoded',
  'encoded',
  'encoded',
  'encoded',
  'plus',
  'raw',
  'broken',
);

function queryString(pairs: fc.Arbitrary<Pair[]>): fc.Arbitrary<string> {
  return fc
    .tuple(pairs, fc.array(encoding, { minLength: 8, maxLength: 8 }), fc.boolean())
    .map(([list, hows, flat]) =>
      list
        .map(([k, v], i) =>
          flat && i === 0 && v === ''
            ? encodePart(k, 'encoded')
            : `${encodePart(k, hows[i % 8] ?? 'encoded')}=${encodePart(v, hows[(i + 3) % 8] ?? 'encoded')}`,
        )
        .join('&'),
    );
}

/** The query of a search: good, good with hostile extras (in any order), or hostile only. */
function searchQuery(site: SiteIndex): fc.Arbitrary<string> {
  const good = goodSearch(site);
  const goodOnly = good.map((pairs) =>
    pairs.map(([k, v]) => `${encodePart(k, 'encoded')}=${encodePart(v, 'encoded')}`).join('&'),
  );
  const mixed = fc.tuple(good, hostilePairs(site), fc.nat()).map(([a, b, seed]) => {
    const all = [...a, ...b];
    // A deterministic shuffle from the drawn seed, so a case replays exactly.
    for (let i = all.length - 1; i > 0; i--) {
      const j = (seed + i * 7919) % (i + 1);
      [all[i], all[j]] = [all[j] as Pair, all[i] as Pair];
    }
    return all;
  });
  const dup = good.map((pairs): Pair[] => [...pairs, ...pairs.slice(0, 1)]);
  return fc.oneof(
    { weight: 8, arbitrary: goodOnly },
    { weight: 3, arbitrary: queryString(mixed) },
    { weight: 1, arbitrary: queryString(dup) },
    { weight: 3, arbitrary: queryString(hostilePairs(site)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '&&&',
        '=',
        '==',
        'zip',
        '?zip=60601',
        `zip=60601&pad=${'x'.repeat(2100)}`,
        'location=%',
        'location=%%32%30',
        'zip=60601#frag',
      ),
    },
  );
}

const listingLike = (site: SiteIndex): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...[...site.byListing.keys()].slice(0, 2000)) },
    { weight: 1, arbitrary: fc.constantFrom(...OBJECT_KEYS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'l_aaaaaaaaaaaaaaaa',
        'L_AAAAAAAAAAAAAAAA',
        '..%2F..%2Fcurrent.json',
        '%2e%2e',
        '..',
        '.',
        '%00',
        'l_%ZZ',
        'x'.repeat(3000),
        'l_aaaaaaaaaaaaaaaa.json',
        '%252e%252e',
      ),
    },
    { weight: 1, arbitrary: junk.map((s) => encodePart(s, 'encoded')) },
  );

/** The target of a REST case: path and query. */
function target(site: SiteIndex): fc.Arbitrary<string> {
  const other = fc.oneof(
    fc.constantFrom(
      '/',
      '/v1/coverage',
      '/openapi.json',
      '/v1/attorneys/',
      '//v1/attorneys',
      '/V1/ATTORNEYS',
      '/v1',
      '/v2/attorneys',
      '/mcp',
      '/index.html',
      '/current.json',
      '/v/x/meta.json',
      '/%00',
      '/v1/attorneys%3Fzip=60601',
      '*',
      'http://poison.invalid/v1/coverage',
      '/r/',
      '/v1/firms/',
    ),
    listingLike(site).map((id) => `/v1/firms/${id}`),
    listingLike(site).map((id) => `/r/${id}`),
    fc
      .tuple(listingLike(site), fc.constantFrom('?x=1', '?', '/extra', '?utm_source=evil'))
      .map(([id, tail]) => `/r/${id}${tail}`),
  );
  return fc.oneof(
    { weight: 6, arbitrary: searchQuery(site).map((q) => `/v1/attorneys${q === '' ? '' : `?${q}`}`) },
    { weight: 2, arbitrary: other },
  );
}

const METHODS: [string, number][] = [
  ['GET', 60],
  ['HEAD', 6],
  ['POST', 4],
  ['OPTIONS', 4],
  ['PUT', 2],
  ['DELETE', 2],
  ['PATCH', 2],
  ['TRACE', 3],
  ['CONNECT', 1],
  ['FOO', 1],
  ['get', 1],
  ['PROPFIND', 1],
  ['M-SEARCH', 1],
  ['TRACK', 1],
  ['PRI', 1],
  ['QUERY', 1],
];
const method = fc.oneof(...METHODS.map(([m, weight]) => ({ weight, arbitrary: fc.constant(m) })));

/** Extra header lines: Host variants, forwarding, Origin, validators, junk values, a huge header, duplicates. */
const extraHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.constantFrom<[string, string]>(
        ['x-forwarded-host', POISON_HOST],
        ['x-forwarded-proto', 'gopher'],
        ['forwarded', `host=${POISON_HOST}`],
        ['origin', 'https://evil.example'],
        ['origin', 'null'],
        ['if-none-match', '*'],
        ['if-none-match', 'W/"x"'],
        ['if-modified-since', 'yesterday'],
        ['accept', 'text/html'],
        ['accept-encoding', 'gzip, br'],
        ['range', 'bytes=0-10'],
        ['cookie', 'a=b'],
        ['x-forwarded-for', '10.0.0.1, 198.51.100.7'],
        ['x-http-method-override', 'DELETE'],
        ['expect', '100-continue'],
        ['content-type', 'application/json'],
        ['transfer-encoding', 'gzip'],
      ),
    },
    {
      weight: 6,
      arbitrary: fc.tuple(
        fc.constantFrom('user-agent', 'x-forwarded-for', 'referer', 'x-request-id', 'accept-language'),
        junk,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string]>(['x-pad', 'a'.repeat(20_000)], ['x-pad', 'b'.repeat(9_000)]),
    },
  ),
  { maxLength: 2 },
);

const hostHeader: fc.Arbitrary<[string, string][]> = fc.oneof(
  { weight: 20, arbitrary: fc.constant<[string, string][]>([['host', HOST_PLACEHOLDER]]) },
  { weight: 1, arbitrary: fc.constant<[string, string][]>([]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, string][]>(
      [['host', POISON_HOST]],
      [['host', `${POISON_HOST}:443`]],
      [['host', '']],
      [['host', 'a b']],
      [
        ['host', HOST_PLACEHOLDER],
        ['host', POISON_HOST],
      ],
    ),
  },
);

/** A REST case. */
export function restCase(site: SiteIndex): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(method, target(site), hostHeader, extraHeaders, fc.option(junk, { freq: 10, nil: undefined }))
    .map(([m, t, host, extra, body]) => ({
      surface: 'rest' as const,
      request: {
        method: m,
        target: t,
        headers: [...host, ['user-agent', 'fuzz-http/1'], ...extra],
        ...(body === undefined ? {} : { body: Buffer.from(body, 'utf8') }),
      },
    }));
}

/** A JSON value of any shape, as an argument or parameter. */
const anyJson = (site: SiteIndex): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: locations(site).zip },
    { weight: 2, arbitrary: keyCity },
    {
      weight: 2,
      arbitrary: fc.oneof(fc.integer({ min: -100, max: 100 }), fc.double(), fc.constantFrom(0, -0, 1e308, 25, 50, 1.5)),
    },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, ['60601'], { zip: '60601' }) },
    { weight: 1, arbitrary: junk },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );

/** JSON text of an object from key/value pairs; keys such as __proto__ are written as own keys, duplicates kept. */
function objectText(pairs: [string, unknown][]): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
}

/** Tool arguments: a good search, a good search with hostile extras, or anything. */
function toolArgs(site: SiteIndex): fc.Arbitrary<string> {
  const good = goodSearch(site).map((pairs) =>
    pairs.map(([k, v]): [string, unknown] => [
      k,
      (k === 'radius_miles' || k === 'limit' || k === 'lat' || k === 'lng') && /^-?\d/.test(v) ? Number(v) : v,
    ]),
  );
  const hostile = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...ACCEPTED), fc.constantFrom(...OBJECT_KEYS), fc.constantFrom(...TYPO_NAMES), junk),
      anyJson(site),
    ),
    { maxLength: 4 },
  );
  const firm = listingLike(site).map((id): [string, unknown][] => [['listing_id', decodeURIComponentSafe(id)]]);
  return fc.oneof(
    { weight: 6, arbitrary: good.map(objectText) },
    { weight: 3, arbitrary: fc.tuple(good, hostile).map(([a, b]) => objectText([...a, ...b])) },
    { weight: 2, arbitrary: hostile.map(objectText) },
    { weight: 2, arbitrary: firm.map(objectText) },
    { weight: 1, arbitrary: fc.constantFrom('null', '[]', '"60601"', '42') },
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One JSON-RPC message as text. */
function message(site: SiteIndex): fc.Arbitrary<string> {
  const id = fc.oneof(fc.nat(), fc.string({ maxLength: 8 }), fc.constantFrom(null, '__proto__', 1.5));
  const toolCall = fc
    .tuple(
      id,
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...TOOL_NAMES) },
        { weight: 1, arbitrary: fc.constantFrom(...OBJECT_KEYS) },
        { weight: 1, arbitrary: junk },
      ),
      toolArgs(site),
    )
    .map(
      ([i, name, args]) =>
        `{"jsonrpc":"2.0","id":${JSON.stringify(i)},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`,
    );
  const init = fc
    .constantFrom('2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01', '')
    .map(
      (v) =>
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":${JSON.stringify(v)},"capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`,
    );
  const other = fc
    .tuple(
      id,
      fc.constantFrom(
        'tools/list',
        'ping',
        'resources/list',
        'prompts/list',
        'server/discover',
        'notifications/initialized',
        'constructor',
        '__proto__',
        'toString',
        'tools/call',
      ),
      fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    )
    .map(([i, m, params]) =>
      objectText([
        ['jsonrpc', '2.0'],
        ['id', i],
        ['method', m],
        ...(params === undefined ? [] : [['params', params] as [string, unknown]]),
      ]),
    );
  const notification = fc.constantFrom(
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
  );
  return fc.oneof(
    { weight: 6, arbitrary: toolCall },
    { weight: 1, arbitrary: init },
    { weight: 2, arbitrary: other },
    { weight: 1, arbitrary: notification },
  );
}

/** An MCP case: a message, a batch (up to 120 messages, often tools/call), or a broken body, with header variants. */
export function mcpCase(site: SiteIndex): fc.Arbitrary<FuzzCase> {
  const one = message(site);
  const batch = fc
    .oneof(
      fc.array(one, { maxLength: 8 }),
      fc
        .tuple(one, fc.integer({ min: 2, max: 120 }))
        .map(([m, n]) => Array.from({ length: n }, (_, i) => m.replace(/"id":[^,]*,/, `"id":${i + 1},`))),
    )
    .map((list) => `[${list.join(',')}]`);
  const broken = fc.oneof(
    junk,
    fc.constantFrom(
      '',
      '{',
      '[',
      '{"jsonrpc":"2.0"',
      'null',
      '[]',
      '[[]]',
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","pad":"${'x'.repeat(70_000)}"}`,
    ),
  );
  const body = fc.oneof(
    { weight: 7, arbitrary: one },
    { weight: 3, arbitrary: batch },
    { weight: 1, arbitrary: broken },
  );
  const version = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['mcp-protocol-version', '2025-03-26']],
        [['mcp-protocol-version', '2025-06-18']],
        [['mcp-protocol-version', '2025-11-25']],
        [['mcp-protocol-version', '2026-07-28']],
        [],
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['mcp-protocol-version', 'junk']],
        [
          ['mcp-protocol-version', '2026-07-28'],
          ['mcp-method', 'tools/call'],
          ['mcp-name', 'find_injury_attorneys'],
        ],
        [['mcp-session-id', 'x']],
      ),
    },
  );
  const kind = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom<[string, string][]>([
        ['content-type', 'application/json'],
        ['accept', 'application/json, text/event-stream'],
      ]),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['content-type', 'text/plain']],
        [
          ['content-type', 'application/json; charset=utf-8'],
          ['accept', 'text/event-stream'],
        ],
        [['accept', 'application/json']],
        [
          ['content-type', 'application/json'],
          ['accept', '*/*'],
        ],
      ),
    },
  );
  const verb = fc.oneof(
    { weight: 20, arbitrary: fc.constant('POST') },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'TRACE', 'HEAD') },
  );
  return fc.tuple(verb, body, version, kind, hostHeader, extraHeaders).map(([m, text, v, k, host, extra]) => {
    let rpc: unknown;
    try {
      rpc = JSON.parse(text) as unknown;
    } catch {
      rpc = undefined;
    }
    return {
      surface: 'mcp' as const,
      request: {
        method: m,
        target: '/mcp',
        headers: [...host, ['user-agent', 'fuzz-mcp/1'], ...k, ...v, ...extra],
        body: Buffer.from(text, 'utf8'),
      },
      ...(rpc === undefined ? {} : { rpc }),
    };
  });
}

/** Any case, REST or MCP, in the given proportion. */
export function anyCase(site: SiteIndex, mcpShare = 0.3): fc.Arbitrary<FuzzCase> {
  const w = Math.round(mcpShare * 100);
  if (w <= 0) return restCase(site);
  if (w >= 100) return mcpCase(site);
  return fc.oneof({ weight: 100 - w, arbitrary: restCase(site) }, { weight: w, arbitrary: mcpCase(site) });
}
