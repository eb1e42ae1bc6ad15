import { apiClient } from './api';

export const LOGIN_FAILED = 'Failed to login';
export const AUTH_FAILED = 'Authentication failed';
export const LOGIN_REQUIRED = 'Login Required';

/** POST /pricing/api/login: ok, or the server's message ('Failed to login' when none). */
export async function login(username: string, password: string, recaptchaValue = ''): Promise<{ ok: true; accountUuid: string } | { ok: false; message: string }> {
  try {
    const r = await apiClient().identity.POST('/pricing/api/login', { body: { username, password, ...(recaptchaValue ? { recaptchaValue } : {}) } });
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

/**
 * POST /pricing/api/create-account/: a new account with a password, logged in at once
 * (the answer sets the session cookie). Used when a purchase needs a login the buyer does
 * not have yet (several licences): the buyer stays on the page with the cart. The
 * marketing consent is not given here (the purchase's own checkbox asks for it).
 */
export async function createAccount(username: string, password: string, isEu: boolean): Promise<{ ok: true; accountUuid: string } | { ok: false; messages: string[] }> {
  try {
    const r = await apiClient().identity.POST('/pricing/api/create-account', {
      body: { username, password, confirmPassword: password, is_eu: isEu, consent: false },
    });
    const data = r.data as { status?: string; user?: { account_uuid?: string } } | undefined;
    if (r.response.ok && data?.user?.account_uuid) return { ok: true, accountUuid: data.user.account_uuid };
    const err = (r.error ?? {}) as { message?: string; msg?: string; fieldErrors?: { field?: string; message?: string }[] };
    const fields = (err.fieldErrors ?? []).map((f) => f.message ?? '').filter(Boolean);
    return { ok: false, messages: fields.length > 0 ? fields : [err.message || err.msg || CREATE_ACCOUNT_FAILED] };
  } catch {
    return { ok: false, messages: [CREATE_ACCOUNT_FAILED] };
  }
}

export const CREATE_ACCOUNT_FAILED = 'There was an error while creating a new account';
