// Package browsertest opens npukit's HTML reports in headless Chromium and
// fails on console errors, exceptions or any network request, checks that
// the sections and charts the page announces exist and are drawn, measures
// the time to render and saves screenshots. It also checks the layout a
// reader sees: the page is no wider than the window (the culprits are
// named), no chart text leaves its chart or overlaps another (rotated
// labels by their rotated outline), every axis prints its ticks in one
// unit and its title names that unit, and a caption names no unit its
// chart's axes do not use. It is built only with the `browser` tag;
// scripts/browser-test.sh renders every corpus file (and the pipeline
// segment sets together), installs Chromium when missing and runs it:
//
//	go test -tags browser ./report/browsertest -reports DIR -shots DIR
package browsertest
