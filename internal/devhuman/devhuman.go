// Package devhuman is the DEVELOPMENT-ONLY human verifier: a checkbox widget served from the
// store's own origin and a siteverify-compatible endpoint, so make dev and the browser tests
// exercise human verification without the internet. It proves nothing about a human: any
// browser that ticks the box passes. Production uses Google reCAPTCHA (checkout's
// adapters.Recaptcha against Google's siteverify, the site key in values, the secret from a
// Secret); never route this package's handler in a cluster.
package devhuman

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
)

// Secret is the development verifier's secret (checkout's CHECKOUT_RECAPTCHA_SECRET in make
// dev): public, because nothing it guards is real.
const Secret = "dev-human-verification-secret-DEVELOPMENT-ONLY"

// SiteKey is the development widget's site key (CHECKOUT_RECAPTCHA_SITE_KEY in make dev).
const SiteKey = "dev-human-site-key"

// TokenPrefix starts every value the development widget hands out; siteverify accepts no
// other, so a made-up value is refused as reCAPTCHA refuses a forged token.
const TokenPrefix = "dev-human-"

// Paths under which Handler serves, on the store's origin (CSP script-src 'self').
const (
	ScriptPath     = "/-/human/widget.js"
	SiteverifyPath = "/-/human/siteverify"
)

// Handler serves the widget's script and siteverify.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+ScriptPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(widgetJS))
	})
	mux.HandleFunc("POST "+SiteverifyPath, siteverify)
	return mux
}

// answer is siteverify's answer as Google words it (developers.google.com/recaptcha/docs/verify).
type answer struct {
	Success    bool     `json:"success"`
	Hostname   string   `json:"hostname,omitempty"`
	ErrorCodes []string `json:"error-codes,omitempty"`
}

func siteverify(w http.ResponseWriter, r *http.Request) {
	var a answer
	switch err := r.ParseForm(); {
	case err != nil:
		a.ErrorCodes = []string{"bad-request"}
	case r.PostForm.Get("secret") == "":
		a.ErrorCodes = []string{"missing-input-secret"}
	case r.PostForm.Get("secret") != Secret:
		a.ErrorCodes = []string{"invalid-input-secret"}
	case r.PostForm.Get("response") == "":
		a.ErrorCodes = []string{"missing-input-response"}
	case !strings.HasPrefix(r.PostForm.Get("response"), TokenPrefix):
		a.ErrorCodes = []string{"invalid-input-response"}
	default:
		a.Success, a.Hostname = true, "localhost"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a)
}

// Token answers a value siteverify accepts, as ticking the widget gives (for tests).
func Token() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return TokenPrefix + hex.EncodeToString(b)
}

// widgetJS implements the part of reCAPTCHA v2's explicit-render API the store's pages use
// (grecaptcha.render with callback, expired-callback and error-callback; reset), then calls
// the function named by the script's onload parameter, as api.js does. The box is a real
// checkbox with a label, so keyboards and screen readers reach it; "Let it expire" plays
// the token running out.
const widgetJS = `(function () {
  'use strict';
  var widgets = [];
  function token() {
    var a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return '` + TokenPrefix + `' + Array.prototype.map.call(a, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }
  function render(el, opts) {
    var id = widgets.length;
    var box = document.createElement('div');
    box.setAttribute('data-dev-human', 'widget');
    var input = document.createElement('input');
    input.type = 'checkbox';
    input.id = 'dev-human-' + id;
    var label = document.createElement('label');
    label.htmlFor = input.id;
    label.textContent = "I'm not a robot (development verifier)";
    var expire = document.createElement('button');
    expire.type = 'button';
    expire.textContent = 'Let it expire';
    var w = { input: input, value: '' };
    input.addEventListener('change', function () {
      if (input.checked) {
        w.value = token();
        if (opts.callback) opts.callback(w.value);
      } else {
        w.value = '';
        if (opts['expired-callback']) opts['expired-callback']();
      }
    });
    expire.addEventListener('click', function () {
      if (!w.value) return;
      input.checked = false;
      w.value = '';
      if (opts['expired-callback']) opts['expired-callback']();
    });
    box.appendChild(input);
    box.appendChild(label);
    box.appendChild(document.createTextNode(' '));
    box.appendChild(expire);
    (typeof el === 'string' ? document.getElementById(el) : el).appendChild(box);
    widgets.push(w);
    return id;
  }
  function reset(id) {
    var w = widgets[id === undefined ? 0 : id];
    if (!w) return;
    w.input.checked = false;
    w.value = '';
  }
  function getResponse(id) {
    var w = widgets[id === undefined ? 0 : id];
    return w ? w.value : '';
  }
  window.grecaptcha = { render: render, reset: reset, getResponse: getResponse };
  var src = document.currentScript && document.currentScript.src;
  var onload = src ? new URL(src).searchParams.get('onload') : null;
  if (onload && typeof window[onload] === 'function') window[onload]();
})();
`
