/** The machine, runtime and source revision a benchmark ran on. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { REPO } from './child.ts';

/** Facts printed at the top of BENCHMARKS.md. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  os: string;
  node: string;
  commit: string;
  /** True when the working tree differs from the commit (the numbers are for the files as they were). */
  dirty: boolean;
  /** 1-minute load average at the start and the end of the run (a sign of how shared the machine was). */
  loadStart: number;
  loadEnd: number | null;
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Read the machine facts now (loadEnd is filled in at the end of the run). */
export function machineInfo(): MachineInfo {
  const cpu = cpus();
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  return {
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryBytes: totalmem(),
    os: `${osType()} ${release()}`,
    node: process.version,
    commit: git(['rev-parse', 'HEAD']) ?? 'unknown (not a git checkout)',
    dirty: status !== null && status !== '',
    loadStart: loadavg()[0] ?? 0,
    loadEnd: null,
  };
}

/** The current 1-minute load average. */
export function loadNow(): number {
  return loadavg()[0] ?? 0;
}
