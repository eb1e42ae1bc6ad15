import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { MSG_HUMAN } from './HumanVerification';
import { FORGOT_PASSWORD_PATH, LoginForm } from './LoginForm';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function fill(scope: HTMLElement, user: string, password: string) {
  fireEvent.change(within(scope).getByLabelText('Email Address'), { target: { value: user } });
  fireEvent.change(within(scope).getByLabelText('Password'), { target: { value: password } });
}

describe('LoginForm', () => {
  it('sends what was typed, keeps LOGIN disabled while the login runs and after a success', async () => {
    const answer = deferred<string | undefined>();
    const onLogin = vi.fn(() => answer.promise);
    render(<LoginForm onLogin={onLogin} title="LOGIN TO EXISTING ACCOUNT" />);
    const form = screen.getByRole('form', { name: 'LOGIN TO EXISTING ACCOUNT' });
    fill(form, 'amelia@e2e.hangar.test', 'secret');
    fireEvent.click(within(form).getByRole('button', { name: 'LOGIN' }));
    expect(onLogin).toHaveBeenCalledWith('amelia@e2e.hangar.test', 'secret', '');
    expect(within(form).getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', true);
    // A second submit while the first runs is not sent.
    fireEvent.submit(form);
    expect(onLogin).toHaveBeenCalledTimes(1);
    await act(async () => answer.resolve(undefined));
    expect(within(form).getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', true);
  });

  it('shows a refusal under the password and enables LOGIN again', async () => {
    const onLogin = vi.fn(async () => 'Invalid username or password.');
    render(<LoginForm onLogin={onLogin} />);
    fill(document.body, 'a@b.test', 'wrong');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'LOGIN' })));
    const password = screen.getByLabelText('Password');
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(password.getAttribute('aria-describedby')!)?.textContent).toBe('Invalid username or password.');
    expect(screen.getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', false);
  });

  it('shows the human-verification widget when the server asks for it past the limits', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ required: true, siteKey: 'k', scriptUrl: '/-/human/widget.js' }), { status: 200 })),
    );
    const onLogin = vi.fn(async () => MSG_HUMAN);
    render(<LoginForm onLogin={onLogin} />);
    expect(screen.queryByTestId('human-verification')).toBeNull();
    fill(document.body, 'a@b.test', 'right');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'LOGIN' })));
    expect(await screen.findByTestId('human-verification')).toBeTruthy();
    expect(screen.getByText(MSG_HUMAN)).toBeTruthy();
    vi.unstubAllGlobals();
  });

  it('shows a thrown error as a refusal', async () => {
    render(<LoginForm onLogin={() => Promise.reject(new Error('The login service did not answer.'))} />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'LOGIN' })));
    expect(screen.getByText('The login service did not answer.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'LOGIN' })).toHaveProperty('disabled', false);
  });

  it('starts with the given e-mail and offers Forgot password? on the LOGIN line', () => {
    render(<LoginForm onLogin={vi.fn()} initialUsername="pilot@e2e.hangar.test" />);
    expect(screen.getByLabelText('Email Address')).toHaveProperty('value', 'pilot@e2e.hangar.test');
    const link = screen.getByRole('link', { name: 'Forgot password?' });
    expect(link.getAttribute('href')).toBe(FORGOT_PASSWORD_PATH);
    expect(link.parentElement).toBe(screen.getByRole('button', { name: 'LOGIN' }).parentElement);
    expect(getComputedStyle(link.parentElement!).display).toBe('flex');
  });

  it('two forms on one page keep their own fields (the buy page has the panel and the modal)', () => {
    render(
      <>
        <LoginForm onLogin={vi.fn()} title="First" />
        <LoginForm onLogin={vi.fn()} title="Second" />
      </>,
    );
    const first = screen.getByRole('form', { name: 'First' });
    const second = screen.getByRole('form', { name: 'Second' });
    fill(first, 'one@e2e.hangar.test', 'x');
    expect(within(first).getByLabelText('Email Address')).toHaveProperty('value', 'one@e2e.hangar.test');
    expect(within(second).getByLabelText('Email Address')).toHaveProperty('value', '');
  });
});
