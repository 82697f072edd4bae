/** Real area codes and IANA zones of the metros (by slug), and one real area code per state for offices outside them. */

/** Per metro slug: its IANA zone and real area codes, each tagged with the state it serves. */
export const METRO_INFO: Readonly<Record<string, { timezone: string; areaCodes: readonly string[] }>> = {
  'new-york': { timezone: 'America/New_York', areaCodes: ['212:NY', '718:NY', '646:NY', '917:NY', '516:NY', '914:NY', '201:NJ', '973:NJ', '732:NJ', '203:CT'] },
  'los-angeles': { timezone: 'America/Los_Angeles', areaCodes: ['213:CA', '310:CA', '323:CA', '818:CA', '626:CA', '562:CA', '714:CA', '949:CA'] },
  chicago: { timezone: 'America/Chicago', areaCodes: ['312:IL', '773:IL', '630:IL', '847:IL', '708:IL', '219:IN'] },
  'dallas-fort-worth': { timezone: 'America/Chicago', areaCodes: ['214:TX', '972:TX', '469:TX', '817:TX', '682:TX'] },
  houston: { timezone: 'America/Chicago', areaCodes: ['713:TX', '281:TX', '832:TX', '346:TX'] },
  atlanta: { timezone: 'America/New_York', areaCodes: ['404:GA', '678:GA', '770:GA', '470:GA'] },
  washington: { timezone: 'America/New_York', areaCodes: ['202:DC', '703:VA', '571:VA', '301:MD', '240:MD'] },
  philadelphia: { timezone: 'America/New_York', areaCodes: ['215:PA', '267:PA', '610:PA', '856:NJ', '302:DE'] },
  miami: { timezone: 'America/New_York', areaCodes: ['305:FL', '786:FL', '954:FL', '561:FL'] },
  phoenix: { timezone: 'America/Phoenix', areaCodes: ['602:AZ', '480:AZ', '623:AZ', '520:AZ'] },
  boston: { timezone: 'America/New_York', areaCodes: ['617:MA', '857:MA', '781:MA', '508:MA', '978:MA', '603:NH'] },
  riverside: { timezone: 'America/Los_Angeles', areaCodes: ['951:CA', '909:CA', '760:CA'] },
  'san-francisco': { timezone: 'America/Los_Angeles', areaCodes: ['415:CA', '510:CA', '650:CA', '925:CA'] },
  detroit: { timezone: 'America/Detroit', areaCodes: ['313:MI', '248:MI', '586:MI', '734:MI'] },
  seattle: { timezone: 'America/Los_Angeles', areaCodes: ['206:WA', '425:WA', '253:WA'] },
  minneapolis: { timezone: 'America/Chicago', areaCodes: ['612:MN', '651:MN', '952:MN', '763:MN'] },
  tampa: { timezone: 'America/New_York', areaCodes: ['813:FL', '727:FL'] },
  'san-diego': { timezone: 'America/Los_Angeles', areaCodes: ['619:CA', '858:CA', '760:CA'] },
  denver: { timezone: 'America/Denver', areaCodes: ['303:CO', '720:CO'] },
  orlando: { timezone: 'America/New_York', areaCodes: ['407:FL', '321:FL'] },
  baltimore: { timezone: 'America/New_York', areaCodes: ['410:MD', '443:MD'] },
  charlotte: { timezone: 'America/New_York', areaCodes: ['704:NC', '980:NC', '803:SC'] },
  'st-louis': { timezone: 'America/Chicago', areaCodes: ['314:MO', '636:MO', '618:IL'] },
  'san-antonio': { timezone: 'America/Chicago', areaCodes: ['210:TX', '830:TX'] },
  austin: { timezone: 'America/Chicago', areaCodes: ['512:TX', '737:TX'] },
  portland: { timezone: 'America/Los_Angeles', areaCodes: ['503:OR', '971:OR', '360:WA'] },
  sacramento: { timezone: 'America/Los_Angeles', areaCodes: ['916:CA', '279:CA', '530:CA'] },
};

/** One real area code per state (its largest city's), for offices outside the metros. */
export const STATE_AREA_CODES: Readonly<Record<string, string>> = {
  AL: '205', AK: '907', AZ: '602', AR: '501', CA: '916', CO: '303', CT: '860', DE: '302', DC: '202', FL: '407', GA: '404',
  HI: '808', ID: '208', IL: '217', IN: '317', IA: '515', KS: '316', KY: '502', LA: '504', ME: '207', MD: '410', MA: '617',
  MI: '616', MN: '507', MS: '601', MO: '816', MT: '406', NE: '402', NV: '702', NH: '603', NJ: '609', NM: '505', NY: '518',
  NC: '919', ND: '701', OH: '614', OK: '405', OR: '541', PA: '412', RI: '401', SC: '803', SD: '605', TN: '615', TX: '512',
  UT: '801', VT: '802', VA: '804', WA: '509', WV: '304', WI: '414', WY: '307',
};

/** Area codes of a metro that serve `state`, or all of the metro's when none does. */
export function metroAreaCodes(slug: string, state: string): string[] {
  const info = METRO_INFO[slug];
  if (!info) throw new Error(`no area codes for metro ${slug}`);
  const inState = info.areaCodes.filter((c) => c.endsWith(`:${state}`)).map((c) => c.slice(0, 3));
  return inState.length > 0 ? inState : info.areaCodes.map((c) => c.slice(0, 3));
}
