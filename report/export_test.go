package report

// CheckChartHTML lets the corpus test (package report_test, which may
// import the per-kind builders) run the layout checks on rendered pages.
var CheckChartHTML = checkChartHTML
