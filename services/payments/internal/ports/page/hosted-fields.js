// Hosted card fields, served on the fields origin (never the store's: docs/pci-saq-a.md).
// The card number and CVV are typed here, posted once to this origin's /api/tokenize and
// never handed to the parent page: the parent only receives the single-use nonce, by
// postMessage to its one allowed origin. Messages are only accepted from that origin (and
// from the parent window): any other sender is ignored.
(function () {
  'use strict';
  var parentOrigin = document.querySelector('meta[name="hangar-parent-origin"]').content;
  var form = document.getElementById('card-form');
  var fields = {
    number: document.getElementById('number'),
    expirationDate: document.getElementById('expirationDate'),
    cvv: document.getElementById('cvv'),
  };
  var errorBox = document.getElementById('error');
  var extra = { cardholderName: '', postalCode: '' };

  // Placeholder MMYYYY on iOS (its numeric keypad has no slash), MM/YYYY elsewhere.
  var iOS = /iPad|iPhone|iPod/.test(navigator.userAgent) ||
    (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  fields.expirationDate.placeholder = iOS ? 'MMYYYY' : 'MM/YYYY';

  function post(message) {
    if (window.parent && window.parent !== window) window.parent.postMessage(message, parentOrigin);
  }

  function showErrors(body) {
    Object.keys(fields).forEach(function (k) { fields[k].removeAttribute('aria-invalid'); });
    var msgs = [];
    (body.fieldErrors || []).forEach(function (f) {
      if (fields[f.field]) fields[f.field].setAttribute('aria-invalid', 'true');
      msgs.push(f.message);
    });
    // payments words the message (domain.CustomerMessage): shown as it comes.
    var text = String(body.message || '') +
      (msgs.length ? ' ' + msgs.join(' ') : '');
    errorBox.textContent = text;
    errorBox.hidden = false;
    post({ type: 'hangar:error', errorType: body.code === 'invalid_argument' ? 'CUSTOMER' : 'NETWORK', message: text, fieldErrors: body.fieldErrors || [] });
  }

  // body: the card fields, or the wallet flow's {flow: 'vault', walletEmail}.
  function tokenize(body) {
    errorBox.hidden = true;
    var xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/tokenize');
    xhr.setRequestHeader('Content-Type', 'application/json');
    xhr.onload = function () {
      var body = {};
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = { message: 'The payment service did not answer.' }; }
      if (xhr.status !== 200) { showErrors(body); return; }
      // The fields keep what was typed (only this origin's page ever holds it): a nonce is
      // single use, so when the payment is refused the buyer corrects the card, or presses Pay
      // again, without typing it all again (issue 45; Stripe Checkout keeps the card on a
      // decline too). The parent page leaves on success, or asks for hangar:clear.
      post({ type: 'hangar:nonce', nonce: body.nonce, details: body.details, description: body.description, kind: body.type });
    };
    xhr.onerror = function () { showErrors({ message: 'Network error. Please try again.' }); };
    xhr.send(JSON.stringify(body));
  }

  function tokenizeCard() {
    tokenize({
      number: fields.number.value, cvv: fields.cvv.value, expirationDate: fields.expirationDate.value,
      cardholderName: extra.cardholderName, postalCode: extra.postalCode,
    });
  }

  // The page has no button of its own: the store page's one Pay button asks for the nonce
  // (a card tokenised here on its own was cleared and went nowhere). Enter in a field asks the
  // store page to pay, as Enter in its own fields would.
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  form.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' || e.isComposing) return;
    e.preventDefault();
    post({ type: 'hangar:submit' });
  });

  // The parent may ask for a tokenisation (its own pay button) and pass the billing name
  // and postal code; messages from any other origin are ignored.
  window.addEventListener('message', function (event) {
    if (event.origin !== parentOrigin || event.source !== window.parent) return;
    var m = event.data || {};
    if (m.type === 'hangar:tokenize' && m.flow === 'vault') {
      tokenize({ flow: 'vault', walletEmail: String(m.walletEmail || '') });
    } else if (m.type === 'hangar:tokenize') {
      extra.cardholderName = String(m.cardholderName || '');
      extra.postalCode = String(m.postalCode || '');
      tokenizeCard();
    } else if (m.type === 'hangar:clear') {
      Object.keys(fields).forEach(function (k) { fields[k].value = ''; });
    }
  });
  post({ type: 'hangar:ready' });
})();
