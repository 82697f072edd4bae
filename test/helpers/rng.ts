/** The seeded PRNG tests use, so failures reproduce: the same mulberry32 the audit tool samples queries with. */
export { seededRandom as rng } from '../../generator/audit/queries.ts';
