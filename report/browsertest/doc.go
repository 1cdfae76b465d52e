// Package browsertest opens npukit's HTML reports in headless Chromium and
// fails on console errors, exceptions or any network request, checks that
// the sections and charts the page announces exist and are drawn, measures
// the time to render and saves screenshots. It is built only with the
// `browser` tag; scripts/browser-test.sh installs Chromium and runs it:
//
//	go test -tags browser ./report/browsertest -reports DIR -shots DIR
package browsertest
