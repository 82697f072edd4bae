/**
 * `node --import tsx bench/cold/tree-variant.ts --site DIR --out DIR [--chunk N ...]`: a copy of a site's live version
 * whose cell tree is rebuilt with other parameters (tree-sweep.ts writeVariant; everything else linked to the
 * original), checked to answer the cold query sets as the site does. Any benchmark that takes a site folder then runs
 * on it: the warm tail (bench/scale/scale-query.ts --large) or the cold path (`npm run bench -- --only cold --site`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { CellIndex } from '../../shim/format/cell-format.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { checkSameAnswers, officesOf, writeVariant } from './tree-sweep.ts';

const { values } = cliOrExit({
  name: 'tree-variant',
  usage: 'node bench/cold/tree-variant.ts --site <dir> --out <dir> [options]',
  description:
    "Writes a copy of the site's live version with its cell tree rebuilt under other parameters (unset ones as the site's index states), then checks that it answers every 5th cold query as the site does.",
  options: {
    site: {
      type: 'string',
      arg: 'dir',
      required: true,
      description: 'the generated site (its live version is copied)',
    },
    out: { type: 'string', arg: 'dir', required: true, description: 'the folder of the copy (emptied first)' },
    leaf: { type: 'integer', min: 1, description: 'offices per leaf cell at most' },
    block: { type: 'integer', min: 1, description: 'offices per block at most' },
    chunk: { type: 'integer', min: 1, description: 'records per record chunk' },
    pages: { type: 'integer', min: 0, max: 15, description: 'resolution of the shared pages' },
  },
});

const site = resolve(values.site);
const v = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
const config = {
  leafMax: values.leaf ?? index.leaf_max,
  blockMax: values.block ?? index.block_max,
  recordChunk: values.chunk ?? index.record_chunk,
  sharedRes: values.pages ?? index.shared_res,
};
const say = (line: string): void => void process.stderr.write(`${line}\n`);
say(`tree-variant: reading the ${index.offices} offices of ${v} from its record chunks`);
const offices = await officesOf(site, v);
say(`tree-variant: writing ${JSON.stringify(config)} into ${values.out}`);
const built = writeVariant(site, v, offices, config, resolve(values.out));
const same = await checkSameAnswers(site, resolve(values.out), 5);
process.stdout.write(`${JSON.stringify({ version: v, config, ...built, sameAnswers: same })}\n`);
