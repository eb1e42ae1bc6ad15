import { afterEach, describe, expect, it } from 'vitest';
import { useState } from 'react';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { bigChange, QuantitySection } from './Quantity';

function Harness({ min, priced = min }: { min: number; priced?: number }) {
  const [value, setValue] = useState('');
  return <QuantitySection value={value} priced={priced} min={min} max={100} salesContact="sales@example.com" onChange={setValue} expanded onExpandedChange={() => undefined} />;
}

/** What a keystroke at the end of the field makes of its current text. */
function typeAtEnd(field: HTMLElement, key: string) {
  const el = field as HTMLInputElement;
  fireEvent.change(el, { target: { value: key === 'Backspace' ? el.value.slice(0, -1) : el.value + key } });
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

// Issue 45: End, Backspace, 8 in a field showing 5 made 58 (the emptied field showed the priced
// count again, and the 8 was typed after it).
describe('licence quantity field, emptied and typed again', () => {
  it('shows the empty field, then exactly what was typed', () => {
    render(<Harness min={2} priced={5} />);
    const field = screen.getByRole('textbox', { name: 'Number of licenses' }) as HTMLInputElement;
    expect(field.value).toBe('5');
    typeAtEnd(field, 'Backspace');
    expect(field.value).toBe('');
    typeAtEnd(field, '8');
    expect(field.value).toBe('8');
    typeAtEnd(field, 'Backspace');
    typeAtEnd(field, '1');
    typeAtEnd(field, '2');
    expect(field.value).toBe('12');
  });
});

describe('a large change of the licence count', () => {
  it.each([
    [5, 8, false],
    [5, 9, false],
    [5, 10, true],
    [5, 58, true],
    [30, 39, false],
    [30, 40, true],
    [5, 4, false],
    [0, 50, false],
  ])('from %i to %i asks for confirmation: %s', (from, to, want) => {
    expect(bigChange(from, to)).toBe(want);
  });

  it('asks for a tick before Pay, naming both counts', () => {
    const seen: boolean[] = [];
    render(
      <QuantitySection
        value="58"
        priced={58}
        min={2}
        max={100}
        salesContact="sales@example.com"
        onChange={() => undefined}
        confirm={{ from: 5, renewal: true, checked: false, onChange: (c) => seen.push(c) }}
        expanded
        onExpandedChange={() => undefined}
      />,
    );
    expect(screen.getByTestId('quantity-confirm').textContent).toContain('from 5 to 58 licenses');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Yes, I want 58 licenses.' }));
    expect(seen).toEqual([true]);
  });
});
