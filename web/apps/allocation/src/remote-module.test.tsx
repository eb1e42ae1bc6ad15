import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import AllocationModule from './remote-module';
import { standaloneProps } from './standalone';

describe('allocation remote', () => {
  it('renders its heading', () => {
    render(<AllocationModule {...standaloneProps('/')} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Licence allocation' })).toBeTruthy();
  });
});
