import { afterEach, describe, expect, it } from 'vitest';
import { useState } from 'react';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QuantitySection } from './Quantity';

function Harness({ min }: { min: number }) {
  const [value, setValue] = useState('');
  return <QuantitySection value={value} priced={min} min={min} max={100} salesContact="sales@example.com" onChange={setValue} expanded onExpandedChange={() => undefined} />;
}

afterEach(cleanup);

// Issue 31: the field kept showing '1', 'abc' or '150' while checkout priced 2 to 100.
describe('licence quantity field', () => {
  it.each([
    [2, '1', '2'],
    [2, 'abc', '2'],
    [1, '150', '100'],
    [2, '5', '5'],
    [1, '7x', '7'],
  ])('min %i: typed %j shows %j once the buyer leaves the field', (min, typed, shown) => {
    render(<Harness min={min} />);
    const field = screen.getByRole('textbox', { name: 'Number of licenses' });
    fireEvent.change(field, { target: { value: typed } });
    expect((field as HTMLInputElement).value).toBe(typed);
    fireEvent.blur(field);
    expect((field as HTMLInputElement).value).toBe(shown);
  });
});
