/**
 * A throwaway PostgreSQL cluster for the PostGIS peer: find the Debian binaries (or install them with apt-get when
 * asked), initdb into bench/out, serve on a unix socket only (no TCP port at all), stop and remove it afterwards.
 */
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { lineSplitter } from '../lib/child.ts';

/** An installed PostgreSQL server of one major version. */
export interface PgInstall {
  major: number;
  bin: string;
  /** Whether the PostGIS extension is installed for this major version. */
  postgis: boolean;
}

/** Major versions under /usr/lib/postgresql (Debian's layout), newest first. */
export function majorsIn(names: readonly string[]): number[] {
  return names
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => b - a);
}

/** The newest PostgreSQL server with initdb, pg_ctl and postgres, or null; `postgis` says whether PostGIS is there. */
export function findPostgres(libDir = '/usr/lib/postgresql', shareDir = '/usr/share/postgresql'): PgInstall | null {
  if (!existsSync(libDir)) return null;
  const installs = majorsIn(readdirSync(libDir))
    .map((major) => ({
      major,
      bin: join(libDir, String(major), 'bin'),
      postgis: existsSync(join(shareDir, String(major), 'extension', 'postgis.control')),
    }))
    .filter((i) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(i.bin, b))));
  return installs.find((i) => i.postgis) ?? installs[0] ?? null;
}

/**
 * The Debian packages to install: the PostGIS package of the installed server's major version, or the distribution's
 * default server with its PostGIS metapackage when no server is there.
 */
export function debianPackages(installed: PgInstall | null): string[] {
  return installed === null ? ['postgresql', 'postgresql-postgis'] : [`postgresql-${installed.major}-postgis-3`];
}

/** Run a command; stderr and stdout lines go to `onLine`; rejects with the last lines when it fails. */
export function run(
  cmd: string,
  args: readonly string[],
  onLine: (line: string) => void,
  env: Record<string, string> = {},
): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const tail: string[] = [];
    const lines = lineSplitter((line) => {
      if (line.trim() === '') return;
      tail.push(line);
      if (tail.length > 20) tail.shift();
      onLine(line);
    });
    child.stdout.on('data', (c: Buffer) => lines.push(c));
    child.stderr.on('data', (c: Buffer) => lines.push(c));
    child.once('error', fail);
    child.once('close', (code) => {
      lines.end();
      if (code === 0) done();
      else fail(new Error(`${cmd} ${args.join(' ')} exited ${code ?? 'by signal'}:\n${tail.slice(-8).join('\n')}`));
    });
  });
}

/** apt-get update, then install debianPackages(); needs root. Returns the install found afterwards. */
export async function installPostgis(onLine: (line: string) => void): Promise<PgInstall> {
  if (process.getuid?.() !== 0)
    throw new Error(
      '--install-postgis runs apt-get and needs root; install the packages yourself: apt-get install ' +
        debianPackages(findPostgres()).join(' '),
    );
  const packages = debianPackages(findPostgres());
  onLine(`apt-get install ${packages.join(' ')}`);
  await run('apt-get', ['update'], onLine);
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], onLine, {
    DEBIAN_FRONTEND: 'noninteractive',
  });
  const found = findPostgres();
  if (found === null || !found.postgis)
    throw new Error(`apt-get installed ${packages.join(' ')} but no PostgreSQL server with PostGIS is there`);
  return found;
}

/** Server settings of the throwaway cluster: no durability (it is thrown away), memory for the sorts, no JIT. */
export const SERVER_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: "''",
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  wal_level: 'minimal',
  max_wal_senders: '0',
  max_wal_size: '4GB',
  shared_buffers: '1GB',
  work_mem: '64MB',
  maintenance_work_mem: '1GB',
  jit: 'off',
};

/** A running cluster: connect with `{ host: socketDir, port, user, database }`. */
export interface Cluster {
  socketDir: string;
  port: number;
  user: string;
  database: string;
  major: number;
  /** Stop the server and remove its files. */
  stop(): Promise<void>;
}

const PORT = 5432;
const USER = 'bench';

/**
 * initdb into `dir` (removed first) and start the server on a unix socket in `dir`. As root it runs as the `postgres`
 * system user (initdb refuses root), which owns `dir`.
 */
export async function startCluster(install: PgInstall, dir: string, onLine: (line: string) => void): Promise<Cluster> {
  rmSync(dir, { recursive: true, force: true });
  const data = join(dir, 'data');
  const socketDir = join(dir, 'sock');
  mkdirSync(socketDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const as = async (cmd: string, args: string[]): Promise<void> =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(install.bin, cmd), ...args], onLine)
      : run(join(install.bin, cmd), args, onLine);
  if (asRoot) {
    const uid = Number(await capture('id', ['-u', 'postgres']));
    const gid = Number(await capture('id', ['-g', 'postgres']));
    chownSync(dir, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  await as('initdb', ['-D', data, '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const options = [
    `-k ${socketDir}`,
    `-p ${PORT}`,
    ...Object.entries(SERVER_SETTINGS).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '120', '-o', options, 'start']);
  return {
    socketDir,
    port: PORT,
    user: USER,
    database: 'postgres',
    major: install.major,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** stdout of a command, trimmed. */
function capture(cmd: string, args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', fail);
    child.once('close', (code) =>
      code === 0 ? done(out.trim()) : fail(new Error(`${cmd} ${args.join(' ')} exited ${code ?? 'by signal'}`)),
    );
  });
}
