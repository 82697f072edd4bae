/**
 * Lambda handler of the hourly salt rotation (infra/edge-log.ts schedules it): today's and tomorrow's salt from the
 * salt bucket into the edge's KeyValueStore, other days' salts deleted. Logs what it did, never a salt.
 */
import { z } from 'zod';
import { rotateEdgeSalt, type RotationReport } from './edge-salt.ts';
import { KvsSaltKeyStore } from './kvs-store.ts';
import { S3SaltProvider } from './salt.ts';
import { logJson } from '../edge/log-line.ts';

/** The rotator's environment. */
export const RotatorEnv = z.object({
  SALT_BUCKET: z.string().min(3).describe('bucket of the daily salts the function instances share'),
  EDGE_SALT_KVS_ARN: z
    .string()
    .startsWith('arn:')
    .describe('ARN of the CloudFront KeyValueStore the edge function reads'),
});

/** Run one rotation now. */
export async function handler(): Promise<RotationReport> {
  const env = RotatorEnv.parse(process.env);
  const report = await rotateEdgeSalt(
    new KvsSaltKeyStore(env.EDGE_SALT_KVS_ARN),
    new S3SaltProvider({ bucket: env.SALT_BUCKET }),
    new Date(),
  );
  logJson({ log: 'edge_salt_rotation', ...report }, (chunk) => process.stdout.write(chunk));
  return report;
}
