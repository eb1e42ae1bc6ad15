export * from './http';
export * from './catalog';
export * from './react';
export type { definitions as CatalogDefinitions, paths as CatalogPaths } from './generated/hangar/catalog/v1/catalog';

import { createHttpClient, type ClientOptions } from './http';
import { catalogApi } from './catalog';

/** The store's API, same origin by default (the edge / Ingress routes the paths). */
export function createApiClient(options: ClientOptions = {}) {
  const http = createHttpClient(options);
  return { http, catalog: catalogApi(http) };
}
export type ApiClient = ReturnType<typeof createApiClient>;
