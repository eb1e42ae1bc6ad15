import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import GiftModule from './remote-module';
import { standaloneProps } from './standalone';

describe('gift remote', () => {
  it('renders its heading', () => {
    render(<GiftModule {...standaloneProps('/')} />);
    expect(screen.getByRole('heading', { level: 1, name: 'BUY A GIFT CERTIFICATE' })).toBeTruthy();
  });
});
