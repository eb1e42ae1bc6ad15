export * from './http';
export * from './catalog';
export * from './typed';
export * from './wire';
export type { components as AllocationComponents, paths as AllocationPaths } from './generated/hangar/allocation/v1/allocation';
export type { components as CatalogComponents, paths as CatalogPaths } from './generated/hangar/catalog/v1/catalog';
export type { components as CheckoutComponents, paths as CheckoutPaths } from './generated/hangar/checkout/v1/checkout';
export type { components as IdentityComponents, paths as IdentityPaths } from './generated/hangar/identity/v1/identity';
export type { components as OrganizationsComponents, paths as OrganizationsPaths } from './generated/hangar/identity/v1/organizations';
export type { components as PaymentsComponents, paths as PaymentsPaths } from './generated/hangar/payments/v1/payments';
/** @deprecated the Swagger 2 name; the schemas of the catalogue document. */
export type { CatalogDefinitions } from './catalog';

import type { ClientOptions } from './http';
import { catalogApi } from './catalog';
import { createTypedClients } from './typed';

/** The store's API, same origin by default (the edge / Ingress routes the paths). */
export function createApiClient(options: ClientOptions = {}) {
  const typed = createTypedClients(options);
  return { ...typed, catalog: catalogApi(typed.catalog), raw: typed };
}
export type ApiClient = ReturnType<typeof createApiClient>;
export * from './purchase';
