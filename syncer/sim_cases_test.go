package syncer_test

// simCases are the seeds of the simulator that found each defect of the
// warm start, the metadata-first relist and the first read, with their fault
// schedules shrunk: each breaks the rule named while the defect is there, and
// none once it is fixed. Defect 8 is one the simulator found beyond those.
var simCases = []simCase{
	{defect: 1, rule: "checkpoint-ahead", seed: 5,
		name: "a Deleted lost for a label- or field-selected type: the GET of a metadata-first relist outruns the watch's replay",
		faults: "52:silent-connection(target 835, 36 steps), 98:watch-cut(target 176, 8 steps), 182:kill(target 24, 64 steps), 275:silent-connection(target 542, 31 steps), 281:identity-unknown(target 148, 31 steps), 461:crd-removed(target 380, 37 steps), 470:watch-410(target 382, 17 steps), 511:watch-410(target 315, 39 steps), 836:watch-410(target 983, 44 steps), 880:silent-connection(target 112, 15 steps), 906:kill(target 595, 43 steps)"},
	{defect: 2, rule: "revision-back", seed: 70,
		name: "time travel: a first stream that broke midway is read again at resourceVersion 0 from a cache further behind",
		faults: "93:slow-consumer(target 722, 38 steps), 277:watch-cut(target 942, 16 steps), 375:compact(target 507, 51 steps), 466:stream-cut-before-end(target 79, 50 steps), 525:cache-stall(target 758, 26 steps), 652:kill(target 584, 49 steps), 714:restart(target 729, 5 steps), 911:apiserver-restart(target 855, 23 steps), 988:write-burst(target 471, 9 steps), 1051:stream-cut-before-end(target 727, 53 steps), 1192:watch-cut(target 460, 19 steps), 1198:cache-stall(target 554, 58 steps), 1505:cache-stall(target 611, 21 steps), 1577:slow-consumer(target 514, 18 steps), 1751:kill(target 663, 47 steps)"},
	{defect: 3, rule: "checkpoint-ahead", seed: 28,
		name: "another cluster's objects resumed: a watch event before the identity's relist notes a revision under the new identity",
		faults: "197:watch-cut(target 600, 60 steps), 272:cluster-changed(target 696, 51 steps), 605:watch-cut(target 503, 14 steps), 814:continue-at-newer-revision(target 95, 13 steps), 823:watch-cut(target 177, 31 steps), 1001:cluster-changed(target 984, 26 steps), 1066:write-burst(target 359, 23 steps), 1119:compact(target 407, 50 steps)"},
	{defect: 4, rule: "checkpoint-ahead", seed: 2,
		name: "the checkpoint's revision runs ahead of its objects: a live event before a relist stream's initial-events-end bookmark",
		faults: "360:compact(target 796, 10 steps)"},
	{defect: 5, rule: "paged-for-good", seed: 12,
		name: "a slow GET or a forbidden metadata list makes an Auto type give up streaming lists for good",
		faults: "33:compact(target 912, 40 steps), 431:cluster-changed(target 761, 7 steps), 713:stream-cut-before-end(target 809, 11 steps), 1128:cache-stall(target 754, 20 steps), 1181:compact(target 675, 11 steps), 1199:forbidden(target 498, 26 steps)"},
	{defect: 6, rule: "resumed-unwhole", seed: 7,
		name: "a warm start announces a snapshot whole without a required type",
		faults: "66:identity-unknown(target 954, 14 steps)"},
	{defect: 7, rule: "checkpoint-ahead", seed: 30,
		name: "smaller contract breaks: a continue page served at a newer revision goes unnoticed",
		faults: "1:cache-stall(target 871, 33 steps), 64:watch-cut(target 334, 29 steps), 300:compact(target 621, 13 steps), 372:apiserver-restart(target 167, 15 steps), 490:kill(target 53, 11 steps), 711:forbidden(target 676, 54 steps), 750:identity-unknown(target 122, 13 steps), 917:slow-consumer(target 822, 19 steps), 1007:write-burst(target 785, 8 steps), 1036:compact(target 950, 35 steps), 1077:watch-410(target 510, 7 steps), 1097:cache-stall(target 173, 15 steps), 1143:watch-cut(target 460, 41 steps), 1263:relist(target 135, 37 steps), 1368:watch-cut(target 868, 23 steps), 1582:continue-at-newer-revision(target 635, 64 steps), 1807:silent-connection(target 614, 41 steps), 1867:kill(target 435, 24 steps)"},
	{defect: 7, rule: "stream-fails", seed: 37,
		name: "smaller contract breaks: streaming lists failing with 500 are retried as streams without end",
		faults: "181:watch-cut(target 100, 16 steps), 287:watch-410(target 223, 53 steps), 302:watch-410(target 373, 21 steps), 380:write-burst(target 990, 59 steps), 422:cache-stall(target 70, 22 steps), 632:apiserver-restart(target 189, 63 steps), 779:stream-cut-before-end(target 92, 58 steps), 851:stream-cut-before-end(target 595, 31 steps), 912:slow-consumer(target 715, 21 steps), 1051:kill(target 198, 48 steps), 1146:kill(target 193, 12 steps), 1197:forbidden(target 63, 46 steps), 1200:crd-removed(target 799, 34 steps), 1236:kill(target 979, 11 steps), 1549:write-burst(target 556, 15 steps), 1871:crd-removed(target 139, 31 steps), 1881:kill(target 571, 11 steps), 2058:internal-error(target 415, 53 steps)"},
	{defect: 8, rule: "deleted-uid", seed: 20,
		name: "a relist's held batch turns a replacement and its deletion into a Deleted of a UID the consumer never saw",
		faults: "189:watch-cut(target 728, 37 steps), 206:write-burst(target 247, 54 steps), 212:kill(target 492, 56 steps), 323:watch-410(target 343, 28 steps), 643:watch-410(target 194, 49 steps), 691:kill(target 722, 39 steps), 818:restart(target 816, 32 steps), 1177:write-burst(target 791, 10 steps), 1586:relist(target 319, 39 steps), 1587:apiserver-restart(target 105, 31 steps), 1623:watch-410(target 570, 64 steps), 1733:compact(target 300, 62 steps)"},
}
