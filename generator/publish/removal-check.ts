/** Publish's last guard: a version that still holds a listing under a standing removal is refused (so a rollback cannot resurrect it). */
import { scanOffices } from '../site/scan.ts';
import { openSite } from '../site/site.ts';
import { describeRemoval, type ActiveRemovals } from '../model/removals.ts';

/** `listing_id: removal` for every office of `version` in the site folder that a standing removal names. */
export async function removedListingsIn(siteDir: string, version: string, removals: ActiveRemovals): Promise<string[]> {
  if (removals.count === 0) return [];
  const site = await openSite({ kind: 'folder', dir: siteDir }, version);
  const { offices } = await scanOffices(site);
  const found: string[] = [];
  for (const o of offices) {
    const m = removals.match({ listing_id: o.listing_id, firm_id: o.firm_id, domain: o.website_domain });
    if (m !== undefined) found.push(`${o.listing_id} "${o.name}": ${describeRemoval(m)}`);
  }
  return found;
}
