import { createApiClient, type ApiClient } from '@hangar/api-client';

/** Same origin: the edge (make dev) or the Ingress routes the API paths. */
let client: ApiClient | undefined;

export function apiClient(): ApiClient {
  client ??= createApiClient();
  return client;
}

/** Tests swap the client. */
export function setApiClient(c: ApiClient | undefined): void {
  client = c;
}
