/** Page weights: each page for people with everything it loads (HTML, CSS, JS, SVG), raw and compressed as served. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { PageDoc, pageKey } from '../../shim/format/page-format.ts';
import type { PageDocT } from '../../shim/format/page-format.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { fmtBytes } from '../lib/stats.ts';

/** One file a page loads, or the page itself. */
export interface PageFile {
  path: string;
  kind: 'html' | 'css' | 'js' | 'svg';
  raw: number;
  gzip: number;
  brotli: number;
}

/** A page and what it loads. */
export interface PageWeight {
  path: string;
  files: PageFile[];
  raw: number;
  gzip: number;
  brotli: number;
}

function kindOf(doc: PageDocT): PageFile['kind'] {
  if (doc.content_type.startsWith('text/html')) return 'html';
  if (doc.content_type.startsWith('text/css')) return 'css';
  if (doc.content_type.startsWith('image/svg')) return 'svg';
  return 'js';
}

function weigh(doc: PageDocT): PageFile {
  const bytes = Buffer.from(doc.body, 'utf8');
  return {
    path: doc.path,
    kind: kindOf(doc),
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 6 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }).length,
  };
}

/** Weights of every HTML page in the served version of the site folder, with the same-origin assets each references. */
export function measurePageWeights(siteDir: string): PageWeight[] {
  const { version } = Pointer.parse(JSON.parse(readFileSync(join(siteDir, keys.pointer), 'utf8')));
  const read = (name: string): PageDocT =>
    PageDoc.parse(JSON.parse(readFileSync(join(siteDir, pageKey(version, name)), 'utf8')));
  const metroNames = readdirSync(join(siteDir, keys.root(version), 'pages', 'metros'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `metros/${f.slice(0, -'.json'.length)}`)
    .sort();
  return ['index', 'docs', 'corrections', ...metroNames].map((name) => {
    const page = read(name);
    const assets = [...page.body.matchAll(/(?:href|src)="\/(assets\/[^"]+)"/g)].map((m) => m[1] as string);
    const files = [weigh(page), ...[...new Set(assets)].map((a) => weigh(read(a)))];
    const sum = (k: 'raw' | 'gzip' | 'brotli'): number => files.reduce((a, f) => a + f[k], 0);
    return { path: page.path, files, raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') };
  });
}

const KINDS: PageFile['kind'][] = ['html', 'css', 'js', 'svg'];

/** The BENCHMARKS.md section. */
export function pagesSection(weights: readonly PageWeight[] | undefined): string {
  const out = ['## 6. Page weight', ''];
  if (weights === undefined) return [...out, 'Skipped.'].join('\n');
  const row = (w: PageWeight): string[] => {
    const byKind = KINDS.map((k) => {
      const fs = w.files.filter((f) => f.kind === k);
      return fs.length === 0 ? '-' : fmtBytes(fs.reduce((a, f) => a + f.gzip, 0));
    });
    return [`\`${w.path}\``, ...byKind, fmtBytes(w.raw), `**${fmtBytes(w.gzip)}**`, fmtBytes(w.brotli)];
  };
  const fixed = weights.filter((w) => !w.path.startsWith('/metros/'));
  const metros = weights.filter((w) => w.path.startsWith('/metros/')).sort((a, b) => a.gzip - b.gzip);
  const shown = [
    ...fixed,
    ...(metros.length > 0 ? [metros[0] as PageWeight, metros[metros.length - 1] as PageWeight] : []),
  ];
  const header = [
    'Page',
    'HTML (gzip)',
    'CSS (gzip)',
    'JS (gzip)',
    'SVG (gzip)',
    'Total raw',
    'Total gzip',
    'Total brotli',
  ];
  out.push(
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...shown.map((w) => `| ${row(w).join(' | ')} |`),
    '',
    `Every page with every same-origin file it references (stylesheets, scripts, chart images), from the sample site; the ${metros.length} metro pages are shown by their lightest and heaviest. ` +
      'Compressed with node:zlib as a CDN would serve them (gzip level 6, brotli quality 5). Target: `/` under 100 KB compressed. ' +
      '`/docs` carries the Swagger UI bundle (swagger-ui-dist), loaded only there.',
  );
  return out.join('\n');
}
