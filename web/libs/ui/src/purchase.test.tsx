import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { BillingFields, CORRECT_FOLLOWING, ErrorSummary, EuConsentField, MSG_EU_CONSENT, OrderSummary, billingErrors } from './index';

describe('ErrorSummary', () => {
  it('announces each problem once under the title', () => {
    render(<ErrorSummary errors={['Name cannot be blank', 'Name cannot be blank', 'Please select a country', '']} />);
    const box = screen.getByRole('alert');
    expect(box.textContent).toContain(CORRECT_FOLLOWING);
    expect(within(box).getAllByRole('listitem').map((l) => l.textContent)).toEqual(['Name cannot be blank', 'Please select a country']);
  });
  it('renders nothing without problems, and can stay silent', () => {
    const { container } = render(<ErrorSummary errors={[]} />);
    expect(container.innerHTML).toBe('');
    render(<ErrorSummary errors={['x']} announce={false} data-testid="quiet" />);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByTestId('quiet').textContent).toContain('x');
  });
});

describe('EuConsentField', () => {
  it('reports the tick and shows the server\'s refusal', () => {
    const onChange = vi.fn();
    render(<EuConsentField checked={false} onChange={onChange} errors={[MSG_EU_CONSENT]} />);
    const box = screen.getByRole('checkbox', { name: /I consent to the processing of my personal data/ });
    fireEvent.click(box);
    expect(onChange).toHaveBeenCalledWith(true);
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText(MSG_EU_CONSENT)).toBeTruthy();
  });
});

describe('BillingFields', () => {
  it('reports each field and shows its messages', () => {
    const onChange = vi.fn();
    const errors = billingErrors(['Name cannot be blank', 'Postal Code cannot be blank', 'Please select a country', 'Other']);
    render(<BillingFields value={{ cardholderName: '', zipcode: '', country: '' }} onChange={onChange} errors={errors} />);
    fireEvent.change(screen.getByLabelText('Cardholder name'), { target: { value: 'Amelia Earhart' } });
    fireEvent.change(screen.getByLabelText('ZIP / Postal code'), { target: { value: '97201' } });
    fireEvent.change(screen.getByLabelText('Country'), { target: { value: 'US' } });
    expect(onChange.mock.calls.map((c) => c[0])).toEqual([{ cardholderName: 'Amelia Earhart' }, { zipcode: '97201' }, { country: 'US' }]);
    expect(screen.getByLabelText('Cardholder name').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Postal Code cannot be blank')).toBeTruthy();
    expect(screen.getByText('Please select a country')).toBeTruthy();
  });
  it('leaves the name out for a stored or read card; the saved-card ZIP message is the ZIP field\'s', () => {
    render(<BillingFields value={{ cardholderName: '', zipcode: '', country: '' }} onChange={() => undefined} showCardholderName={false} />);
    expect(screen.queryByLabelText('Cardholder name')).toBeNull();
    expect(billingErrors(['Please enter your zipcode'])).toEqual({ zipcode: ['Please enter your zipcode'] });
  });
});

describe('OrderSummary', () => {
  it('lists lines with quantities, the tax label and the total in the currency', () => {
    render(
      <OrderSummary
        lines={[
          { key: 'a', description: 'Printed Chart Pack', quantity: 3, amountInCents: 26700 },
          { key: 'b', description: 'Gift certificate', amountInCents: 4000 },
        ]}
        currency="EUR"
        taxLabel="VAT"
        taxInCents={500}
        totalInCents={31200}
        testIdPrefix="oneoff"
      >
        <p>extra</p>
      </OrderSummary>,
    );
    const box = screen.getByRole('complementary', { name: 'Order summary' });
    expect(within(box).getByText('Printed Chart Pack × 3')).toBeTruthy();
    expect(within(box).getByText('VAT')).toBeTruthy();
    expect(screen.getByTestId('oneoff-total').textContent).toContain('312');
    expect(screen.getByTestId('oneoff-total').textContent).toContain('€');
    expect(screen.getByTestId('oneoff-tax').textContent).toContain('5');
    expect(within(box).getByText('extra')).toBeTruthy();
  });
});
