import ui from './ui.module.css';

/**
 * The card brands the payment processor accepts (the "Which cards do you accept?" answer),
 * as marks beside the card form: buyers look for their card's mark before typing its number.
 * Drawn here, not fetched: no third-party image on the payment page.
 */
export const CARD_BRANDS = ['Visa', 'Mastercard', 'American Express', 'Discover'] as const;

function Mark({ name }: { name: (typeof CARD_BRANDS)[number] }) {
  const common = { role: 'img', 'aria-label': name, width: 40, height: 26, viewBox: '0 0 40 26', className: ui.hCardBrand } as const;
  switch (name) {
    case 'Visa':
      return (
        <svg {...common}>
          <rect width="40" height="26" rx="4" fill="#1a1f71" />
          <text x="20" y="17.5" textAnchor="middle" fontFamily="Arial, sans-serif" fontSize="11" fontWeight="700" fontStyle="italic" fill="#fff">
            VISA
          </text>
        </svg>
      );
    case 'Mastercard':
      return (
        <svg {...common}>
          <rect width="40" height="26" rx="4" fill="#fff" stroke="#767676" />
          <circle cx="16" cy="13" r="7.5" fill="#eb001b" />
          <circle cx="24" cy="13" r="7.5" fill="#f79e1b" fillOpacity="0.85" />
        </svg>
      );
    case 'American Express':
      return (
        <svg {...common}>
          <rect width="40" height="26" rx="4" fill="#006fcf" />
          <text x="20" y="16.5" textAnchor="middle" fontFamily="Arial, sans-serif" fontSize="8.5" fontWeight="700" fill="#fff">
            AMEX
          </text>
        </svg>
      );
    case 'Discover':
      return (
        <svg {...common}>
          <rect width="40" height="26" rx="4" fill="#fff" stroke="#767676" />
          <text x="18" y="16" textAnchor="middle" fontFamily="Arial, sans-serif" fontSize="6.5" fontWeight="700" fill="#1b1b1b">
            DISCOVER
          </text>
          <circle cx="34" cy="13" r="2.2" fill="#e55c20" />
        </svg>
      );
  }
}

/** "We accept" and the marks, one line. */
export function CardBrands() {
  return (
    <p className={ui.hCardBrands} data-testid="card-brands">
      <span className={ui.hCardBrandsLabel}>We accept</span>
      {CARD_BRANDS.map((b) => (
        <Mark key={b} name={b} />
      ))}
    </p>
  );
}
