import { describe, expect, it, vi, afterEach } from 'vitest';
import { render, screen, fireEvent } from '@testing-library/react';
import GiftModule from './remote-module';
import { standaloneProps } from './standalone';

afterEach(() => vi.restoreAllMocks());

describe('gift remote', () => {
  it('renders its heading, amounts and the add action', () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}', { status: 200 }));
    render(<GiftModule {...standaloneProps('/gift/370,40')} />);
    expect(screen.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeTruthy();
    expect(screen.getAllByTestId('gift-certificate')).toHaveLength(2);
    fireEvent.click(screen.getByRole('button', { name: 'Add Another Certificate' }));
    expect(screen.getAllByTestId('gift-certificate')).toHaveLength(3);
    expect(screen.getByRole('link', { name: 'gift certificate terms' })).toBeTruthy();
  });
});
