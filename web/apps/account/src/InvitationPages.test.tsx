import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '@hangar/api-client';
import { InvitationPage, MembersPage } from './InvitationPages';
import type { AccountApi, Invitation } from './account';

afterEach(cleanup);

const TOKEN = 'B'.repeat(43);

function wrap(ui: ReactNode) {
  return render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{ui}</QueryClientProvider>);
}

function api(inv: Partial<Invitation> = {}, over: Partial<AccountApi> = {}): AccountApi {
  return {
    invite: vi.fn(async () => 'If this address can receive e-mail, an invitation to join the organization is on its way.'),
    invitation: vi.fn(async () => ({ organizationName: 'Acme Flight Department', email: 'crew@example.com', roles: ['member'], expiresAt: '', hasAccount: false, ...inv })),
    acceptInvitation: vi.fn(async () => ({ status: 'ok', organizationName: 'Acme Flight Department', organizationAccount: 'acc-1' })),
    ...over,
  } as unknown as AccountApi;
}

describe('members page', () => {
  it('invites and shows the one answer', async () => {
    const a = api();
    render(<MembersPage api={a} />);
    fireEvent.change(screen.getByLabelText('Email Address'), { target: { value: 'crew@example.com' } });
    fireEvent.change(screen.getByLabelText('Role'), { target: { value: 'dispatcher' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send invitation' }));
    expect((await screen.findByTestId('invite-sent')).textContent).toContain('invitation');
    expect(a.invite).toHaveBeenCalledWith('crew@example.com', ['dispatcher']);
  });
});

describe('invitation page', () => {
  it('names the organization as unverified and creates the account with a password', async () => {
    const a = api();
    wrap(<InvitationPage api={a} hash={`#token=${TOKEN}`} />);
    expect((await screen.findByTestId('invitation-org')).textContent).toContain('calls itself Acme Flight Department');
    expect(screen.getByText(/has not verified this name/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'blue skies over the hangar' } });
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'blue skies' } });
    fireEvent.click(screen.getByRole('button', { name: 'Accept the invitation' }));
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(a.acceptInvitation).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'blue skies over the hangar' } });
    fireEvent.click(screen.getByRole('button', { name: 'Accept the invitation' }));
    expect((await screen.findByTestId('invitation-joined')).textContent).toContain('Acme Flight Department');
    expect(a.acceptInvitation).toHaveBeenCalledWith(TOKEN, 'blue skies over the hangar', 'blue skies over the hangar');
  });

  it('asks an existing account to log in, and accepts without a password', async () => {
    const a = api({ hasAccount: true });
    wrap(<InvitationPage api={a} hash={`#token=${TOKEN}`} />);
    expect(await screen.findByRole('link', { name: 'Log in' })).toBeTruthy();
    expect(screen.queryByLabelText('New password')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Accept the invitation' }));
    expect(await screen.findByTestId('invitation-joined')).toBeTruthy();
    expect(a.acceptInvitation).toHaveBeenCalledWith(TOKEN, '', '');
  });

  it('shows a dead invitation', async () => {
    const dead = new ApiError(400, 'invalid_argument', 'This invitation has expired or has already been used.', [
      { field: 'token', message: 'This invitation has expired or has already been used.' },
    ]);
    wrap(<InvitationPage api={api({}, { invitation: vi.fn(async () => Promise.reject(dead)) })} hash={`#token=${TOKEN}`} />);
    expect((await screen.findByRole('alert')).textContent).toContain('has already been used');
  });
});
