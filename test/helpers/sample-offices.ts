/** The sample's firms and stored offices as the generator builds them (inputs of the latest week in data/, visibility measured). */
import { resolve } from 'node:path';
import { buildCoverage } from '../../generator/model/coverage.ts';
import { groupFirms } from '../../generator/model/firms.ts';
import { latestWeek, readInputs, type Inputs } from '../../generator/inputs/read.ts';
import { buildOffices, type BuiltFirm } from '../../generator/model/offices.ts';
import { measureVisibility } from '../../generator/model/visibility.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';

/** The sample's latest week: its inputs as read, and every firm built with its offices. */
export async function sampleFirms(): Promise<{ inputs: Inputs; firms: BuiltFirm[] }> {
  const data = resolve('data');
  const inputs = await readInputs(data, await latestWeek(data));
  const { firms } = groupFirms(
    inputs.places.map((r) => r.value),
    inputs.flags,
  );
  const vis = measureVisibility(
    inputs.metros,
    inputs.samples.map((r) => r.value),
    firms,
    buildCoverage(inputs.metros),
  );
  return { inputs, firms: buildOffices(firms, vis) };
}

/** Every stored office of the sample's latest week. */
export async function sampleOffices(): Promise<StoredOfficeT[]> {
  return (await sampleFirms()).firms.flatMap((b) => b.offices);
}
