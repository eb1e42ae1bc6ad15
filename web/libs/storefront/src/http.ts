import { createApiClient, unwrap, type ApiClient } from '@hangar/api-client';

/** The signed-in user as identity's /buy/api/me answers it (the fields these pages read). */
export interface CurrentUser {
  loggedIn?: boolean;
  accountUuid?: string;
  username?: string;
  email?: string;
  isCreditCardAdmin?: boolean;
}

/** GET /buy/api/me through the store's client. */
export function currentUser(signal?: AbortSignal, client: ApiClient = createApiClient()): Promise<CurrentUser> {
  return unwrap(client.identity.GET('/buy/api/me', { signal }));
}
