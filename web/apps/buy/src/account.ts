import { apiClient } from './api';

export const LOGIN_FAILED = 'Failed to login';
export const AUTH_FAILED = 'Authentication failed';
export const LOGIN_REQUIRED = 'Login Required';

/** POST /pricing/api/login: ok, or the server's message ('Failed to login' when none). */
export async function login(username: string, password: string): Promise<{ ok: true; accountUuid: string } | { ok: false; message: string }> {
  try {
    const r = await apiClient().identity.POST('/pricing/api/login', { body: { username, password } });
    const data = r.data as { status?: string; user?: { account_uuid?: string } } | undefined;
    if (r.response.ok && data?.status === 'ok') return { ok: true, accountUuid: data.user?.account_uuid ?? '' };
    const err = (r.error ?? {}) as { msg?: string; message?: string };
    return { ok: false, message: err.msg || err.message || LOGIN_FAILED };
  } catch {
    return { ok: false, message: LOGIN_FAILED };
  }
}

export async function logout(): Promise<string[]> {
  try {
    const r = await apiClient().identity.POST('/pricing/api/logout', { body: {} });
    if (r.response.ok) return [];
    const err = (r.error ?? {}) as { errors?: string[]; message?: string };
    return err.errors ?? [err.message ?? 'Logout failed'];
  } catch (e) {
    return [(e as Error).message];
  }
}
