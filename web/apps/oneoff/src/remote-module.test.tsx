import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import OneOffModule from './remote-module';
import { standaloneProps } from './standalone';

describe('oneoff remote', () => {
  it('shows the cart from the route', () => {
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: 'c-42' }} />);
    expect(screen.getByRole('heading', { level: 1, name: 'COMPLETE YOUR ORDER' })).toBeTruthy();
    expect(screen.getByTestId('cart-id').textContent).toBe('c-42');
  });
  it('reads the cart id standalone', () => {
    expect(standaloneProps('/product/cart/a%20b').params.cartId).toBe('a b');
    expect(standaloneProps('/').params.cartId).toBe('demo');
  });
  it('renders text, not markup, from the URL', () => {
    render(<OneOffModule route="/product/cart/:cartId" params={{ cartId: '<img src=x onerror=alert(1)>' }} />);
    expect(screen.getByTestId('cart-id').querySelector('img')).toBeNull();
  });
});
