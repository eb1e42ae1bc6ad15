import { expect, test } from '@playwright/test';
import { keepScreenshot } from '../support/helpers';

// The payments service's hosted card fields, on the fields origin, framed by a store page as
// in production: the store page asks the frame to tokenise (the frame has no button of its
// own), a test card is tokenised in the frame and only the nonce reaches the parent.
test('hosted fields tokenise a test card and hand the nonce to the store page', async ({ page }) => {
  await page.goto('/buy');
  const fieldsUrl = ((await (await page.request.get('/buy/api/payments/client-token')).json()) as { hostedFieldsUrl: string }).hostedFieldsUrl;
  const frameEl = await page.evaluateHandle((fields) => {
    const messages: unknown[] = [];
    (window as unknown as { hostedMessages: unknown[] }).hostedMessages = messages;
    window.addEventListener('message', (e) => {
      if (e.origin === new URL(fields).origin) messages.push(e.data);
    });
    const f = document.createElement('iframe');
    // The store names its own origin; the page accepts only origins it is configured for.
    f.src = fields + '?parentOrigin=' + encodeURIComponent(window.location.origin);
    f.title = 'Card details';
    f.style.width = '420px';
    f.style.height = '320px';
    document.body.prepend(f);
    return f;
  }, fieldsUrl);
  const frame = await (await frameEl.asElement()!.contentFrame())!;
  // What the store page's Pay button does: ask the frame, by postMessage to its origin.
  const tokenize = () =>
    frameEl.evaluate((f, fields) => {
      (f as HTMLIFrameElement).contentWindow!.postMessage({ type: 'hangar:tokenize', cardholderName: 'Amelia Earhart', postalCode: '97201' }, new URL(fields).origin);
    }, fieldsUrl);
  await frame.waitForSelector('#number');
  await expect(frame.locator('#expirationDate')).toHaveAttribute('placeholder', 'MM/YYYY');

  // A declining-format mistake first: a number failing the Luhn check is a field error
  // shown in the frame, worded with 'process', never 'tokenize'.
  await frame.fill('#number', '4111 1111 1111 1112');
  await frame.fill('#expirationDate', '12/2030');
  await frame.fill('#cvv', '123');
  await expect(frame.getByRole('button')).toHaveCount(0);
  await tokenize();
  await expect(frame.locator('#error')).toBeVisible();
  await expect(frame.locator('#error')).not.toContainText(/tokeni[sz]e/i);
  await expect(frame.locator('#number')).toHaveAttribute('aria-invalid', 'true');

  await frame.fill('#number', '4111 1111 1111 1111');
  await tokenize();
  const nonce = await page.waitForFunction(() => {
    const m = (window as unknown as { hostedMessages: Array<{ type: string }> }).hostedMessages;
    return m.find((x) => x && x.type === 'hangar:nonce') || false;
  });
  const msg = (await nonce.jsonValue()) as unknown as { nonce: string; details: { lastFour: string } };
  expect(msg.nonce).toMatch(/^tokencc_/);
  expect(msg.details.lastFour).toBe('1111');
  expect(JSON.stringify(msg)).not.toContain('4111111111111111');
  // The frame keeps the card as typed (its own origin's page only): a refused payment is
  // corrected or paid again without typing the whole card (issue 45).
  await expect(frame.locator('#number')).not.toHaveValue('');
  await keepScreenshot(page, 'hosted-fields');
});
