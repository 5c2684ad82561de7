package curator

// Helpers for the tests of package curator_test, which use the extractor
// (which imports curator).
var (
	SummaryScenario = summaryScenario
	Note            = note
	TestVault       = testVault
	Put             = put
	Curate          = curate
	LiveSummaries   = liveSummaries
	Settings        = settings
)
