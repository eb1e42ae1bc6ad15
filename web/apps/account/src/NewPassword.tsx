// The password-choosing part of the set-password page and of an invitation's acceptance:
// the two fields, the checks the page makes before asking the server (the server applies
// the whole policy), and how a refused request's errors reach the fields.
import { ApiError } from '@hangar/api-client';
import { TextField } from '@hangar/ui';
import { errorText } from './account';

export const MIN_PASSWORD_LENGTH = 8;

export function fieldErrorsOf(err: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (err instanceof ApiError) {
    for (const f of err.fieldErrors) (out[f.field] ??= []).push(f.message);
  }
  return out;
}

/** The errors of a refused request: per field when the server named fields, else the form's. */
export function submitErrors(err: unknown): Record<string, string[]> {
  const fe = fieldErrorsOf(err);
  return Object.keys(fe).length > 0 ? fe : { form: [errorText(err)] };
}

/** The page's own checks of a new password and its confirmation; empty when both pass. */
export function newPasswordErrors(password: string, confirm: string): Record<string, string[]> {
  const local: Record<string, string[]> = {};
  if ([...password].length < MIN_PASSWORD_LENGTH) local.password = [`Passwords must be at least ${MIN_PASSWORD_LENGTH} characters.`];
  if (password !== confirm) local.confirmPassword = ['Passwords do not match'];
  return local;
}

export function NewPasswordFields(p: {
  password: string;
  confirm: string;
  errors: Record<string, string[]>;
  onPassword: (v: string) => void;
  onConfirm: (v: string) => void;
}) {
  return (
    <>
      <TextField
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        value={p.password}
        errors={p.errors.password ?? []}
        onChange={(e) => p.onPassword(e.target.value)}
      />
      <TextField
        label="Confirm password"
        name="confirmPassword"
        type="password"
        autoComplete="new-password"
        value={p.confirm}
        errors={p.errors.confirmPassword ?? []}
        onChange={(e) => p.onConfirm(e.target.value)}
      />
    </>
  );
}
