/**
 * The week's answers log: the checkpoint and, compressed, the raw archive. One JSON line per (grid point, query) bought,
 * appended and fsynced as soon as the answer is in, so a crash loses at most the answers in flight.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { ApiPlace } from './places-api.ts';

/** First line of a log: what run this is. */
export const LogHeader = z.object({
  kind: z.literal('header'),
  schema_version: z.literal(1),
  week: z.string(),
  provider: z.string(),
  collected_at: z.iso.datetime(),
});

/** One bought answer. `places` went through ApiPlace, so rating and review fields are not in it. */
export const LogAnswer = z.object({
  kind: z.literal('answer'),
  metro: z.string(),
  point_id: z.string(),
  lat: z.number(),
  lng: z.number(),
  query: z.string(),
  requests: z.number().int().min(0),
  places: z.array(ApiPlace),
});

export type LogHeaderT = z.infer<typeof LogHeader>;
export type LogAnswerT = z.infer<typeof LogAnswer>;

/** Key of a (grid point, query) pair. */
export const answerKey = (pointId: string, query: string): string => `${pointId}\u0000${query}`;

/** Paths of a week's log: `<out>/raw/<week>/answers.jsonl` while running, `.jsonl.gz` once the week is written. */
export function logPaths(outDir: string, week: string): { plain: string; archive: string } {
  const dir = join(outDir, 'raw', week);
  return { plain: join(dir, 'answers.jsonl'), archive: join(dir, 'answers.jsonl.gz') };
}

/** Parses log text; a torn last line (a kill mid-write) is reported through `tornAt` (its byte offset) and ignored. */
export function parseLog(
  text: string,
  source: string,
): { header: LogHeaderT; answers: LogAnswerT[]; tornAt: number | null } {
  let tornAt: number | null = null;
  let body = text;
  if (body.length > 0 && !body.endsWith('\n')) {
    const cut = body.lastIndexOf('\n') + 1;
    tornAt = Buffer.byteLength(body.slice(0, cut), 'utf8');
    body = body.slice(0, cut);
  }
  const lines = body.split('\n').filter((l) => l !== '');
  const first = lines[0];
  if (first === undefined) throw new Error(`${source}: empty answers log`);
  const header = LogHeader.parse(JSON.parse(first));
  const answers = lines.slice(1).map((line, i) => {
    const parsed = LogAnswer.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${source} line ${i + 2}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
  return { header, answers, tornAt };
}

/** Reads a log or archive file (gzip when it ends in .gz). */
export function readLogFile(path: string): { header: LogHeaderT; answers: LogAnswerT[]; tornAt: number | null } {
  const raw = readFileSync(path);
  return parseLog((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'), path);
}

/** An open log that answers are appended to. */
export class AnswersLog {
  private fd: number;

  readonly path: string;
  readonly header: LogHeaderT;
  readonly answers: Map<string, LogAnswerT>;
  private constructor(path: string, header: LogHeaderT, answers: Map<string, LogAnswerT>) {
    this.path = path;
    this.header = header;
    this.answers = answers;
    this.fd = openSync(path, 'a');
  }

  /**
   * Opens the week's log: creates it with `header` when there is none; with `resume`, continues an existing one (a
   * finished week's archive is unpacked first); without it, refuses to touch an existing run.
   */
  static open(outDir: string, header: LogHeaderT, resume: boolean): { log: AnswersLog; tornBytes: number } {
    const { plain, archive } = logPaths(outDir, header.week);
    const exists = existsSync(plain) || existsSync(archive);
    if (exists && !resume)
      throw new Error(
        `a run of ${header.week} already exists (${existsSync(plain) ? plain : archive}): pass --resume to continue it`,
      );
    mkdirSync(dirname(plain), { recursive: true });
    if (!existsSync(plain) && existsSync(archive)) writeFileSync(plain, gunzipSync(readFileSync(archive)));
    if (!existsSync(plain)) {
      writeFileSync(plain, `${JSON.stringify(header)}\n`);
      return { log: new AnswersLog(plain, header, new Map()), tornBytes: 0 };
    }
    const text = readFileSync(plain, 'utf8');
    const parsed = parseLog(text, plain);
    let tornBytes = 0;
    if (parsed.tornAt !== null) {
      tornBytes = Buffer.byteLength(text, 'utf8') - parsed.tornAt;
      truncateSync(plain, parsed.tornAt);
    }
    if (parsed.header.provider !== header.provider)
      throw new Error(`${plain} was collected with --provider ${parsed.header.provider}, not ${header.provider}`);
    const answers = new Map<string, LogAnswerT>();
    for (const a of parsed.answers) answers.set(answerKey(a.point_id, a.query), a);
    return { log: new AnswersLog(plain, parsed.header, answers), tornBytes };
  }

  /** Appends one answer and makes it durable before returning. */
  append(answer: LogAnswerT): void {
    const buf = Buffer.from(`${JSON.stringify(answer)}\n`, 'utf8');
    for (let off = 0; off < buf.length;) off += writeSync(this.fd, buf, off);
    fsyncSync(this.fd);
    this.answers.set(answerKey(answer.point_id, answer.query), answer);
  }

  /** Requests bought so far, over every answer in the log. */
  get requests(): number {
    let n = 0;
    for (const a of this.answers.values()) n += a.requests;
    return n;
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
  }

  /** Closes and compresses the log into the week's archive (gzip), removing the plain file. */
  archive(): string {
    this.close();
    const { archive } = logPaths(dirname(dirname(dirname(this.path))), this.header.week);
    writeFileSync(`${archive}.tmp`, gzipSync(readFileSync(this.path), { level: 9 }));
    renameSync(`${archive}.tmp`, archive);
    rmSync(this.path);
    return archive;
  }
}
