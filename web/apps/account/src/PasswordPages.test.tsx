import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { ApiError } from '@hangar/api-client';
import { ForgotPasswordPage, SetPasswordPage, linkFromHash } from './PasswordPages';
import type { AccountApi } from './account';

afterEach(cleanup);

const TOKEN = 'A'.repeat(43);

function api(over: Partial<AccountApi> = {}): AccountApi {
  return {
    setPassword: vi.fn(async () => ({ status: 'ok', user: { username: 'buyer@example.com' } })),
    forgotPassword: vi.fn(async () => 'If an account exists for that email address, we have sent it a link.'),
    ...over,
  } as unknown as AccountApi;
}

function fill(password: string, confirm: string) {
  fireEvent.change(screen.getByLabelText('New password'), { target: { value: password } });
  fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: confirm } });
  fireEvent.click(screen.getByRole('button', { name: 'Set password' }));
}

describe('set-password page', () => {
  it('reads the token and the purpose from the fragment', () => {
    expect(linkFromHash(`#token=${TOKEN}&welcome=1`)).toEqual({ token: TOKEN, welcome: true });
    expect(linkFromHash(`#token=${TOKEN}`)).toEqual({ token: TOKEN, welcome: false });
  });

  it('states the policy and refuses a mismatch before asking the server', () => {
    const a = api();
    render(<SetPasswordPage api={a} hash={`#token=${TOKEN}&welcome=1`} />);
    expect(screen.getByRole('heading', { name: 'Choose your password' })).toBeTruthy();
    expect(screen.getByTestId('password-policy').textContent).toContain('at least 8 characters');
    fill('blue skies over the hangar', 'blue skies');
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(a.setPassword).not.toHaveBeenCalled();
  });

  it('sets the password and says who is logged in', async () => {
    const a = api();
    render(<SetPasswordPage api={a} hash={`#token=${TOKEN}`} />);
    fill('blue skies over the hangar', 'blue skies over the hangar');
    expect((await screen.findByTestId('password-user')).textContent).toBe('buyer@example.com');
    expect(a.setPassword).toHaveBeenCalledWith(TOKEN, 'blue skies over the hangar', 'blue skies over the hangar');
  });

  it('shows a dead link with the way to a new one', async () => {
    const dead = new ApiError(400, 'invalid_argument', 'This link has expired or has already been used. Please ask for a new one.', [
      { field: 'token', message: 'This link has expired or has already been used. Please ask for a new one.' },
    ]);
    render(<SetPasswordPage api={api({ setPassword: vi.fn(async () => Promise.reject(dead)) })} hash={`#token=${TOKEN}`} />);
    fill('blue skies over the hangar', 'blue skies over the hangar');
    expect((await screen.findByRole('alert')).textContent).toContain('has already been used');
    expect(screen.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('/account/forgot-password');
  });

  it('without a token, offers a new link', () => {
    render(<SetPasswordPage api={api()} hash="" />);
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toBeTruthy();
  });
});

describe('forgot-password page', () => {
  it("shows the server's one answer", async () => {
    const a = api();
    render(<ForgotPasswordPage api={a} />);
    fireEvent.change(screen.getByLabelText('Email Address'), { target: { value: 'pilot@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect((await screen.findByTestId('forgot-sent')).textContent).toContain('If an account exists');
    expect(a.forgotPassword).toHaveBeenCalledWith('pilot@example.com');
  });
});
