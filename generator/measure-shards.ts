/**
 * `npx tsx generator/measure-shards.ts [--site site/] [--metros new-york,los-angeles,chicago]`: objects and bytes a radius
 * query reads, per shard resolution and as planned by planShards, at 1, 15 and 50 miles around points in dense metros,
 * and the bytes of the office records inside the circle (the floor no choice of shard cells can go below).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cellsCoveringCircle, destination, haversineMiles } from '../shim/core/geo.ts';
import { planShards } from '../shim/core/shards.ts';
import { CoverageDoc, keys, Pointer, Shard, ShardIndex } from '../shim/core/site-format.ts';

const HELP = `Usage: npx tsx generator/measure-shards.ts [--site site/] [--metros a,b,c]
Prints, per radius, the mean and max shard objects and bytes a query reads at each resolution and with planShards,
and the bytes of the office records within the radius (the floor of any sharding).`;

const { values: args } = parseArgs({
  options: { site: { type: 'string', default: 'site/' }, metros: { type: 'string', default: 'new-york,los-angeles,chicago' }, help: { type: 'boolean', short: 'h' } },
});
if (args.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const site = args.site;
const pointer = Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8')));
const index = ShardIndex.parse(JSON.parse(await readFile(join(site, keys.shardIndex(pointer.version)), 'utf8')));
const coverage = CoverageDoc.parse(JSON.parse(await readFile(join(site, keys.coverage(pointer.version)), 'utf8')));
const wanted = new Set(args.metros.split(','));

// Every office once (the finest resolution), with the size of its record as serialised in a shard (plus a comma).
const finest = Math.max(...index.resolutions);
const records: { lat: number; lng: number; bytes: number }[] = [];
const finestCells = Object.keys(index.cells[String(finest)] ?? {});
for (const [i, cell] of finestCells.entries()) {
  const shard = Shard.parse(JSON.parse(await readFile(join(site, keys.shard(pointer.version, finest, cell)), 'utf8')));
  for (const o of shard.offices) records.push({ lat: o.lat, lng: o.lng, bytes: Buffer.byteLength(JSON.stringify(o)) + 1 });
  if (i % 200 === 0) process.stderr.write(`reading res ${finest} shards: ${i}/${finestCells.length}\n`);
}
const recordBytes = records.reduce((n, r) => n + r.bytes, 0);

// Centre plus 8 points 5 and 15 miles out: 17 points per metro.
const points: [number, number][] = [];
for (const m of coverage.metros.filter((x) => wanted.has(x.slug))) {
  points.push([m.center.lat, m.center.lng]);
  for (const d of [5, 15]) for (let i = 0; i < 8; i++) points.push(destination(m.center.lat, m.center.lng, d, (i * Math.PI) / 4));
}

type Stat = { objects: number[]; bytes: number[] };
const fmt = (s: Stat): string => {
  const mean = (a: number[]): number => a.reduce((x, y) => x + y, 0) / a.length;
  return `${mean(s.objects).toFixed(1)} obj (max ${Math.max(...s.objects)}), ${(mean(s.bytes) / 1024).toFixed(0)} KiB (max ${(Math.max(...s.bytes) / 1024).toFixed(0)})`;
};
process.stdout.write(`site ${pointer.version}, ${points.length} points in ${[...wanted].join(', ')}, bound ${index.max_shards_per_query} objects\n`);
process.stdout.write(`${records.length} offices, record ${(recordBytes / records.length).toFixed(0)} bytes on average\n`);
for (const radius of [1, 15, 50]) {
  const perRes = new Map<number, Stat>(index.resolutions.map((r) => [r, { objects: [], bytes: [] }]));
  const planned: Stat = { objects: [], bytes: [] };
  const inside: number[] = [];
  const chosen = new Map<number, number>();
  for (const [lat, lng] of points) {
    inside.push(records.reduce((n, r) => (haversineMiles(lat, lng, r.lat, r.lng) <= radius ? n + r.bytes : n), 0));
    for (const res of index.resolutions) {
      const present = index.cells[String(res)] ?? {};
      const cells = cellsCoveringCircle(lat, lng, radius, res).filter((c) => present[c] !== undefined);
      perRes.get(res)?.objects.push(cells.length);
      perRes.get(res)?.bytes.push(cells.reduce((n, c) => n + (present[c]?.[1] ?? 0), 0));
    }
    const plan = planShards(index, lat, lng, radius);
    const present = index.cells[String(plan.res)] ?? {};
    planned.objects.push(plan.cells.length);
    planned.bytes.push(plan.cells.reduce((n, c) => n + (present[c]?.[1] ?? 0), 0));
    chosen.set(plan.res, (chosen.get(plan.res) ?? 0) + 1);
  }
  process.stdout.write(`radius ${radius} mi\n`);
  for (const [res, s] of perRes) process.stdout.write(`  res ${res}: ${fmt(s)}\n`);
  const picks = [...chosen].sort((a, b) => a[0] - b[0]).map(([r, n]) => `res ${r} x${n}`).join(', ');
  process.stdout.write(`  planned: ${fmt(planned)}; chose ${picks}\n`);
  const kib = (n: number): string => (n / 1024).toFixed(0);
  process.stdout.write(`  records within the radius: ${kib(inside.reduce((x, y) => x + y, 0) / inside.length)} KiB (max ${kib(Math.max(...inside))})\n`);
}
