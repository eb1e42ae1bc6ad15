/** The region key of a region add-on code (add_geo_<key>, included_geo_<key>): the id of its
 * outline in GET /buy/map/api/resources. Undefined for any other code. Kept apart from the
 * map so the page can use it without loading the map's chunk. */
export function regionKey(addOnCode: string): string | undefined {
  return /_geo_(.+)$/.exec(addOnCode)?.[1];
}
