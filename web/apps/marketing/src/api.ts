import { createApiClient, type ApiClient } from '@hangar/api-client';

let client: ApiClient | undefined;

export function apiClient(): ApiClient {
  client ??= createApiClient();
  return client;
}

export function setApiClient(c: ApiClient | undefined): void {
  client = c;
}
