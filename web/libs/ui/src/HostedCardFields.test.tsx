import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { createRef } from 'react';
import { HostedCardFields, type HostedCardFieldsHandle } from './HostedCardFields';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const FIELDS = 'https://pay.store.test';

function post(data: unknown, origin: string, source: MessageEventSource | null) {
  act(() => {
    window.dispatchEvent(new MessageEvent('message', { data, origin, source }));
  });
}

// The store's side of the fields' postMessage channel (docs/pci-saq-a.md): it frames the
// fields origin the client token names, and takes messages only from that origin and that
// frame's window.
describe('HostedCardFields', () => {
  it('frames the fields origin and ignores messages from any other origin or window', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ hostedFieldsUrl: `${FIELDS}/` }), { status: 200 })));
    const handle = createRef<HostedCardFieldsHandle>();
    const { container } = render(<HostedCardFields handle={handle} />);
    const frame = screen.getByTestId('hosted-fields') as HTMLIFrameElement;
    await waitFor(() => expect(frame.getAttribute('src')).toBe(`${FIELDS}/?parentOrigin=${encodeURIComponent(window.location.origin)}`));
    // The frame's src is rendered before the effect that listens to it has run; let it run,
    // or a message posted now would find no listener (seen under load in CI).
    await act(async () => {});
    const box = container.firstElementChild!;

    post({ type: 'hangar:ready' }, 'https://evil.test', frame.contentWindow);
    post({ type: 'hangar:ready' }, window.location.origin, frame.contentWindow);
    post({ type: 'hangar:ready' }, FIELDS, window);
    expect(box.hasAttribute('data-ready')).toBe(false);
    const blank = await handle.current!.tokenize('Amelia Earhart', '97201');
    expect(blank).toEqual({ ok: false, message: 'Credit Card cannot be blank' });

    post({ type: 'hangar:ready' }, FIELDS, frame.contentWindow);
    expect(box.hasAttribute('data-ready')).toBe(true);

    const sent = vi.spyOn(frame.contentWindow!, 'postMessage');
    const pending = handle.current!.tokenize('Amelia Earhart', '97201');
    expect(sent).toHaveBeenCalledWith({ type: 'hangar:tokenize', cardholderName: 'Amelia Earhart', postalCode: '97201' }, FIELDS);
    post({ type: 'hangar:nonce', nonce: 'tokencc_forged' }, 'https://evil.test', frame.contentWindow);
    post({ type: 'hangar:nonce', nonce: 'tokencc_forged' }, FIELDS, window);
    post({ type: 'hangar:nonce', nonce: 'tokencc_real', details: { lastFour: '1111' } }, FIELDS, frame.contentWindow);
    await expect(pending).resolves.toEqual({ ok: true, nonce: 'tokencc_real', details: { lastFour: '1111' } });
  });

  it("passes Enter in the frame (hangar:submit) to the page's pay action, from the fields frame only", async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ hostedFieldsUrl: `${FIELDS}/` }), { status: 200 })));
    const onSubmitRequest = vi.fn();
    render(<HostedCardFields handle={createRef<HostedCardFieldsHandle>()} onSubmitRequest={onSubmitRequest} />);
    const frame = screen.getByTestId('hosted-fields') as HTMLIFrameElement;
    await waitFor(() => expect(frame.getAttribute('src')).toContain(FIELDS));
    // The frame's src is rendered before the effect that listens to it has run; let it run,
    // or a message posted now would find no listener (seen under load in CI).
    await act(async () => {});
    post({ type: 'hangar:submit' }, 'https://evil.test', frame.contentWindow);
    post({ type: 'hangar:submit' }, FIELDS, window);
    expect(onSubmitRequest).not.toHaveBeenCalled();
    post({ type: 'hangar:submit' }, FIELDS, frame.contentWindow);
    expect(onSubmitRequest).toHaveBeenCalledTimes(1);
  });

  it("shows the payments service's refusal as it says it: the message rule is payments' (issue 43)", async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ hostedFieldsUrl: `${FIELDS}/` }), { status: 200 })));
    const handle = createRef<HostedCardFieldsHandle>();
    render(<HostedCardFields handle={handle} />);
    const frame = screen.getByTestId('hosted-fields') as HTMLIFrameElement;
    await waitFor(() => expect(frame.getAttribute('src')).toContain(FIELDS));
    await act(async () => {});
    post({ type: 'hangar:ready' }, FIELDS, frame.contentWindow);
    const pending = handle.current!.tokenize('Amelia Earhart', '97201');
    const said = 'The tokenize step of this card failed.';
    post({ type: 'hangar:error', errorType: 'CUSTOMER', message: said }, FIELDS, frame.contentWindow);
    await expect(pending).resolves.toEqual({ ok: false, customer: true, message: said });
  });

  // Issue 45: creating the frame inside the commit that mounts the payment form made one long
  // task of it on /buy. Deferred, a sized place stands in until the frame's address is known
  // and the browser is idle, and the frame comes in a commit of its own.
  it('with deferFrame, holds the frame\'s place and frames the fields in a later commit', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ hostedFieldsUrl: `${FIELDS}/` }), { status: 200 })));
    const { container } = render(<HostedCardFields handle={createRef<HostedCardFieldsHandle>()} frameClassName="frame" deferFrame />);
    expect(screen.queryByTestId('hosted-fields')).toBeNull();
    expect(container.querySelector('div.frame[aria-hidden="true"]')).toBeTruthy();
    const frame = await screen.findByTestId('hosted-fields');
    expect(frame.getAttribute('src')).toBe(`${FIELDS}/?parentOrigin=${encodeURIComponent(window.location.origin)}`);
    expect(frame.className).toBe('frame');
    expect(container.querySelector('div.frame')).toBeNull();
  });
});
