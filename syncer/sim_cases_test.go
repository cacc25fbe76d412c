package syncer_test

// simFixedCases are the seeds of the simulator that found the defects of the
// warm start, the metadata-first relist and the first read (1 to 7), of a
// relist's held batch (8), of a metadata list's pages (9), of a relist after
// a cluster change (10), of a refused type's status (11), of a relist's
// changes written to the checkpoint before the consumer had them (12), of two
// types of one kind (13), of outages (14 to 16) and of the liveness status (17,
// 18: seeds of the variant that has it, live), of a Deleted held back for two
// types of one kind (19, 20) and of two clusters' objects at one revision (21), with their fault schedules shrunk. Before its fix, each broke the rule named as its defect
// (-sim.regressions=found; 1 to 7 at 4dc0611, 12 to 18 at b55b93b, 12's second case, of two
// types of one kind, at e17283e; 19 and 20 at 8170673; 19's fourth case and 21 at 984926d); each runs clean now.
var simFixedCases = []simCase{
	{defect: 1, rule: "checkpoint-ahead", seed: 9,
		name:   "a Deleted lost for a selected type: the GET of a metadata-first relist outruns the watch's replay",
		faults: "91:apiserver-restart(target 970, 31 steps); 103:cluster-changed(target 297, 27 steps); 210:apiserver-restart(target 313, 64 steps); 240:cluster-changed(target 277, 30 steps); 244:apiserver-restart(target 610, 26 steps); 270:watch-410(target 606, 33 steps); 614:write-burst(target 348, 16 steps); 702:stream-cut-before-end(target 116, 18 steps); 832:crd-removed(target 55, 46 steps); 1017:slow-consumer(target 951, 60 steps); 1369:relist(target 633, 49 steps); 1397:restart(target 714, 7 steps); 1505:write-burst(target 463, 58 steps)"},
	{defect: 2, rule: "revision-back", seed: 14,
		name:   "time travel: a first stream cut midway is read again at resourceVersion 0 from a cache further behind",
		faults: "126:internal-error(target 902, 34 steps); 362:silent-connection(target 966, 58 steps); 479:write-burst(target 124, 56 steps); 559:watch-cut(target 56, 58 steps); 775:relist(target 249, 16 steps); 792:stream-cut-before-end(target 154, 49 steps); 914:forbidden(target 92, 42 steps); 1087:slow-consumer(target 825, 64 steps); 1649:internal-error(target 43, 28 steps); 1652:slow-consumer(target 378, 42 steps); 1654:kill(target 689, 23 steps); 1684:stream-cut-before-end(target 696, 31 steps)"},
	{defect: 3, rule: "checkpoint-ahead", seed: 13,
		name:   "another cluster's objects resumed: a watch event before the identity's relists notes a revision",
		faults: "145:stream-cut-before-end(target 628, 14 steps); 300:kill(target 959, 59 steps); 405:slow-consumer(target 491, 29 steps); 429:restart(target 679, 23 steps); 473:stream-cut-before-end(target 585, 42 steps); 522:internal-error(target 511, 22 steps); 581:silent-connection(target 741, 20 steps); 630:no-bookmarks(target 106, 47 steps); 697:crd-removed(target 755, 34 steps); 886:stream-cut-before-end(target 15, 33 steps); 971:kill(target 216, 52 steps); 1034:slow-consumer(target 530, 52 steps); 1062:kill(target 233, 30 steps); 1193:stream-cut-before-end(target 211, 48 steps); 1312:identity-unknown(target 441, 29 steps); 1392:kill(target 883, 23 steps); 1520:kill(target 251, 44 steps); 1605:watch-410(target 769, 56 steps); 1632:compact(target 615, 5 steps); 1661:slow-get(target 261, 40 steps); 1740:continue-at-newer-revision(target 104, 43 steps); 1790:kill(target 123, 44 steps); 1817:kill(target 11, 39 steps); 1827:compact(target 648, 40 steps); 2022:kill(target 30, 52 steps); 2061:write-burst(target 101, 28 steps); 2094:cluster-changed(target 490, 56 steps); 2139:watch-410(target 846, 47 steps); 2196:write-burst(target 885, 43 steps)"},
	{defect: 4, rule: "checkpoint-ahead", seed: 2,
		name:   "the checkpoint's revision ahead of its objects: a live event before a relist stream's initial-events-end bookmark",
		faults: "360:compact(target 796, 10 steps)"},
	{defect: 5, rule: "paged-for-good", seed: 22,
		name:   "a slow GET or a forbidden metadata list makes an Auto type give up streaming lists for good",
		faults: "44:cache-stall(target 841, 34 steps); 151:kill(target 39, 60 steps); 169:identity-unknown(target 184, 24 steps); 226:stream-cut-before-end(target 205, 39 steps); 384:crd-removed(target 837, 44 steps); 393:compact(target 219, 48 steps); 611:cache-stall(target 106, 18 steps); 629:watch-cut(target 584, 32 steps); 727:watch-cut(target 301, 16 steps); 845:cluster-changed(target 816, 6 steps); 909:forbidden(target 581, 49 steps); 947:relist(target 235, 16 steps); 1168:identity-unknown(target 688, 52 steps); 1245:kill(target 237, 58 steps); 1395:forbidden(target 882, 30 steps)"},
	{defect: 6, rule: "resumed-unwhole", seed: 3,
		name:   "a warm start announces a snapshot whole without a required type",
		faults: "311:torn-write(target 851, 16 steps); 457:internal-error(target 160, 55 steps); 494:torn-write(target 378, 18 steps); 590:identity-unknown(target 893, 54 steps)"},
	{defect: 7, rule: "checkpoint-ahead", seed: 41,
		name:   "a continue page served at a newer revision goes unnoticed",
		faults: "188:watch-cut(target 616, 42 steps); 231:silent-connection(target 792, 42 steps); 241:compact(target 602, 28 steps); 268:kill(target 150, 46 steps); 289:crd-removed(target 259, 28 steps); 319:silent-connection(target 623, 41 steps); 682:watch-cut(target 54, 57 steps); 759:crd-removed(target 304, 36 steps); 807:continue-at-newer-revision(target 858, 16 steps); 914:crd-removed(target 150, 38 steps); 1059:watch-cut(target 801, 28 steps); 1118:compact(target 867, 36 steps); 1165:watch-410(target 603, 31 steps); 1183:watch-410(target 908, 21 steps); 1231:identity-unknown(target 615, 60 steps); 1258:kill(target 562, 30 steps); 1285:crd-removed(target 504, 37 steps); 1424:restart(target 945, 22 steps); 1455:watch-410(target 298, 53 steps); 1489:silent-connection(target 938, 63 steps); 1589:identity-unknown(target 983, 58 steps); 1654:apiserver-restart(target 543, 33 steps); 1697:stream-cut-before-end(target 353, 64 steps)"},
	{defect: 7, rule: "stream-fails", seed: 63,
		name:   "streaming lists failing with 500 are retried as streams without end",
		faults: "148:identity-unknown(target 246, 6 steps); 542:kill(target 131, 18 steps); 585:consistent-read-504/429(target 330, 33 steps); 762:cluster-changed(target 527, 20 steps); 828:cache-stall(target 259, 44 steps); 996:stream-cut-before-end(target 881, 34 steps); 1295:watch-cut(target 30, 14 steps); 1968:internal-error(target 763, 46 steps); 1977:torn-write(target 482, 13 steps)"},
	{defect: 7, rule: "converge", seed: 110,
		name:   "a continue page served at a newer revision goes unnoticed",
		faults: "264:watch-410(target 387, 25 steps); 271:restart(target 48, 26 steps); 292:watch-cut(target 557, 40 steps); 465:crd-removed(target 451, 23 steps); 562:compact(target 241, 33 steps); 588:stream-cut-before-end(target 691, 43 steps); 629:forbidden(target 1009, 56 steps); 696:kill(target 745, 32 steps); 709:continue-at-newer-revision(target 101, 61 steps); 814:restart(target 991, 54 steps); 1014:compact(target 460, 52 steps); 1146:compact(target 166, 32 steps); 1319:no-bookmarks(target 116, 38 steps); 1366:crd-removed(target 685, 29 steps); 1429:continue-at-newer-revision(target 800, 18 steps); 1496:kill(target 231, 20 steps); 1500:watch-410(target 494, 55 steps); 1639:watch-cut(target 774, 60 steps); 2103:relist(target 255, 27 steps); 2243:watch-410(target 332, 45 steps)"},
	{defect: 8, rule: "deleted-uid", seed: 2,
		name:   "a relist's held batch turns a replacement and its deletion into a Deleted of a UID the consumer never saw",
		faults: "16:stream-cut-before-end(target 665, 39 steps); 360:compact(target 796, 10 steps); 471:apiserver-restart(target 59, 47 steps); 679:identity-unknown(target 463, 14 steps); 723:watch-cut(target 748, 59 steps); 841:watch-410(target 21, 7 steps); 866:crd-removed(target 396, 38 steps); 929:silent-connection(target 775, 54 steps); 993:crd-removed(target 535, 22 steps); 1054:watch-cut(target 630, 14 steps); 1080:watch-cut(target 787, 10 steps); 1147:stream-cut-before-end(target 313, 62 steps); 1164:forbidden(target 95, 35 steps); 1344:write-burst(target 505, 8 steps); 1364:slow-consumer(target 318, 12 steps); 1382:internal-error(target 707, 49 steps); 1383:restart(target 165, 19 steps); 1395:compact(target 1011, 22 steps); 1445:relist(target 353, 60 steps); 1571:slow-consumer(target 855, 46 steps); 1581:write-burst(target 590, 36 steps)"},
	{defect: 10, rule: "checkpoint-ahead", seed: 112,
		name:   "after a cluster change, the relist takes an object at the same name and revision, but another UID, for unchanged",
		faults: "285:identity-unknown(target 332, 54 steps); 293:apiserver-restart(target 141, 40 steps); 361:watchlist-refused(target 44, 32 steps); 384:cluster-changed(target 238, 46 steps); 393:forbidden(target 218, 29 steps); 412:internal-error(target 824, 61 steps); 415:compact(target 399, 9 steps); 417:write-burst(target 202, 33 steps); 493:compact(target 582, 23 steps); 597:forbidden(target 643, 19 steps); 618:kill(target 803, 8 steps); 677:cluster-changed(target 298, 41 steps); 685:stream-cut-before-end(target 201, 37 steps)"},
	{defect: 9, rule: "checkpoint-ahead", seed: 193,
		name:   "a metadata-first relist takes its last page's revision, although a continue page came from a newer snapshot",
		faults: "34:watch-cut(target 828, 20 steps); 161:restart(target 193, 49 steps); 215:silent-connection(target 926, 32 steps); 239:cache-stall(target 277, 59 steps); 381:no-bookmarks(target 358, 32 steps); 389:watch-cut(target 783, 38 steps); 503:slow-consumer(target 266, 51 steps); 508:write-burst(target 225, 16 steps); 534:write-burst(target 486, 51 steps); 542:forbidden(target 657, 16 steps); 621:watch-410(target 970, 51 steps); 641:cluster-changed(target 342, 40 steps); 724:watchlist-refused(target 530, 60 steps); 828:continue-at-newer-revision(target 26, 27 steps)"},
	{defect: 11, rule: "insync-early", seed: 78877,
		name:   "a type refused, then answered with streaming lists refused, still counts as synced while it lists again",
		faults: "76:write-burst(target 718, 61 steps); 147:cluster-changed(target 48, 12 steps); 229:watchlist-refused(target 562, 60 steps); 229:forbidden(target 957, 29 steps)"},
	{defect: 12, rule: "checkpoint-delivered", seed: 1,
		name:   "half a relist written: the relists after a cluster change hand their changes to the checkpoint before the consumer",
		faults: "1899:watch-cut(target 523, 41 steps); 1994:cluster-changed(target 322, 21 steps)"},
	{defect: 12, rule: "checkpoint-delivered", seed: 1,
		name:   "a type's Deleted of a pod the other type's stream, behind, still holds is written although the consumer keeps the type's revision: a warm start resumes the older one",
		faults: "113:slow-consumer(target 461, 39 steps); 293:watch-cut(target 654, 49 steps); 582:continue-at-newer-revision(target 956, 22 steps); 596:watch-cut(target 832, 51 steps); 648:watch-410(target 724, 20 steps); 662:slow-consumer(target 869, 24 steps); 821:crd-removed(target 759, 10 steps); 943:watch-cut(target 540, 21 steps); 1082:restart(target 633, 11 steps); 1117:forbidden(target 441, 12 steps); 1361:identity-unknown(target 1023, 29 steps); 1399:apiserver-restart(target 0, 52 steps); 1399:write-burst(target 208, 19 steps); 1447:restart(target 355, 46 steps); 1449:watch-410(target 201, 8 steps); 1485:torn-write(target 667, 42 steps); 1672:unreachable(target 325, 38 steps); 1874:silent-connection(target 479, 15 steps); 1899:watch-cut(target 523, 41 steps); 1994:cluster-changed(target 322, 21 steps); 2079:watch-cut(target 528, 34 steps)"},
	{defect: 13, rule: "new-held", seed: 2,
		name:   "a pod relabeled from one type of kind Pod to the other (WithName) arrives as New of a key the consumer holds, then Deleted",
		faults: ""},
	{defect: 13, rule: "revision-back", seed: 1,
		name:   "a type's stream behind brings an older revision of a pod the other type's Deleted already took",
		faults: "31:silent-connection(target 758, 49 steps); 113:slow-consumer(target 461, 39 steps); 293:watch-cut(target 654, 49 steps)"},
	{defect: 13, rule: "converge", seed: 17,
		name:   "after a cluster change, the relist's Deleted of the old cluster's pods leaves the new cluster's older revisions untold",
		faults: "16:continue-at-newer-revision(target 234, 17 steps); 148:watch-410(target 958, 34 steps); 515:compact(target 552, 11 steps); 726:write-burst(target 762, 50 steps); 729:watch-cut(target 327, 31 steps); 1005:continue-at-newer-revision(target 983, 12 steps); 1955:cluster-changed(target 288, 13 steps)"},
	{defect: 14, rule: "unreachable-late", seed: 1,
		name:   "a stalled apiserver is reported Unreachable a progress deadline late, at the next error",
		faults: "1672:stalled-server(target 325, 38 steps)"},
	{defect: 15, rule: "outage-relist", seed: 2,
		name:   "refused connections count toward ErrorsToRelist: an outage makes a type relist and leave InSync",
		faults: "1054:watch-cut(target 630, 14 steps); 1581:stalled-server(target 590, 36 steps); 1852:unreachable(target 473, 49 steps)"},
	{defect: 16, rule: "wake-up", seed: 3,
		name:   "types parked on an outage wait out their backoff after the apiserver answered again",
		faults: "311:identity-unknown(target 851, 16 steps); 401:internal-error(target 647, 22 steps); 439:apiserver-restart(target 647, 17 steps)"},
	{defect: 17, rule: "liveness", seed: 2, live: true,
		name:   "a consumer held while the server answers makes the loop push back, and the liveness status takes that for silence",
		faults: "1581:consumer-held(target 590, 36 steps)"},
	{defect: 18, rule: "liveness", seed: 2, live: true,
		name:   "a warm start reports WaitForDatastore before its types caught up: a type not answered yet counted as silent from the zero time",
		faults: "1383:identity-unknown(target 165, 19 steps)"},
	{defect: 18, rule: "liveness", seed: 11, live: true,
		name:   "a resumed type that has not caught up reads WaitForDatastore once silent, although it stays ResyncInProgress until caught up",
		faults: "183:compact(target 1005, 36 steps); 213:kill(target 474, 39 steps); 251:slow-get(target 90, 49 steps)"},
	{defect: 19, rule: "checkpoint-delivered", seed: 139,
		name:   "a relist's later change of a pod drops the Deleted held back before it reaches the file: the consumer is told Deleted, the file keeps the pod",
		faults: "33:stream-cut-before-end(target 182, 55 steps); 64:no-bookmarks(target 48, 39 steps); 69:compact(target 259, 35 steps); 82:apiserver-restart(target 569, 63 steps); 225:stalled-server(target 432, 32 steps); 455:watch-cut(target 506, 40 steps); 458:watch-cut(target 435, 55 steps); 557:consistent-read-504/429(target 543, 46 steps); 584:stalled-server(target 829, 16 steps); 691:kill(target 123, 55 steps); 753:stream-cut-before-end(target 131, 12 steps)"},
	{defect: 19, rule: "checkpoint-delivered", seed: 4076, live: true,
		name:   "a relist answered from another cluster, its identity unread, brings a pod at an older revision: the consumer keeps a revision no type holds",
		faults: "23:restart(target 563, 60 steps); 143:silent-connection(target 485, 16 steps); 245:stream-cut-before-end(target 900, 44 steps); 288:apiserver-restart(target 107, 34 steps); 329:identity-unknown(target 675, 62 steps); 340:relist(target 988, 45 steps); 406:forbidden(target 354, 45 steps); 417:cluster-changed(target 408, 36 steps); 430:write-burst(target 479, 52 steps); 458:slow-consumer(target 602, 36 steps)"},
	{defect: 19, rule: "checkpoint-delivered", seed: 54885, live: true,
		name:   "a type that held the consumer's revision relists from another cluster and goes back, while the other type holds a newer one untold: the consumer keeps a revision no type holds",
		faults: "251:kill(target 753, 47 steps); 338:relist(target 117, 40 steps); 352:unreachable(target 135, 59 steps); 603:silent-connection(target 424, 64 steps); 668:identity-unknown(target 395, 46 steps); 768:stalled-server(target 191, 52 steps); 833:stream-cut-before-end(target 247, 22 steps); 847:apiserver-restart(target 398, 50 steps); 849:slow-consumer(target 315, 41 steps); 913:stream-cut-before-end(target 613, 25 steps); 932:apiserver-restart(target 567, 44 steps); 1189:apiserver-restart(target 485, 58 steps); 1189:consumer-held(target 968, 14 steps); 1227:kill(target 340, 49 steps); 1431:watch-410(target 638, 31 steps); 1479:relist(target 578, 61 steps); 1496:stream-cut-before-end(target 999, 20 steps); 1527:cache-stall(target 978, 64 steps); 1557:stalled-server(target 401, 60 steps); 1577:watch-410(target 84, 13 steps); 1595:kill(target 469, 62 steps); 1729:internal-error(target 1014, 29 steps); 1805:get-forbidden(target 722, 7 steps); 1869:forbidden(target 200, 37 steps); 1871:cluster-changed(target 922, 5 steps); 1888:slow-consumer(target 178, 35 steps); 1909:watch-cut(target 258, 10 steps); 1917:forbidden(target 929, 44 steps)"},
	{defect: 20, rule: "checkpoint-delivered", seed: 2340,
		name:   "after a cluster change, the type that held the old cluster's pod lets it go: the other type's pod of this cluster, untold as older, is never told",
		faults: "1:watch-cut(target 781, 63 steps); 14:cache-stall(target 742, 23 steps); 43:cluster-changed(target 918, 19 steps); 64:cluster-changed(target 915, 6 steps); 157:slow-consumer(target 477, 16 steps); 208:kill(target 891, 15 steps); 257:consumer-held(target 714, 45 steps); 348:cache-stall(target 143, 45 steps); 395:cache-stall(target 76, 51 steps); 404:continue-at-newer-revision(target 413, 26 steps); 463:relist(target 606, 11 steps); 496:identity-unknown(target 765, 24 steps); 644:watch-cut(target 460, 35 steps); 674:watch-410(target 970, 48 steps); 755:kill(target 490, 48 steps); 775:slow-consumer(target 434, 28 steps); 906:stream-cut-before-end(target 410, 23 steps); 998:consumer-held(target 3, 22 steps); 1048:cluster-changed(target 356, 38 steps); 1360:write-burst(target 548, 27 steps); 1399:compact(target 1010, 29 steps); 1456:write-burst(target 149, 59 steps); 1521:cluster-changed(target 736, 13 steps); 1583:unreachable(target 684, 20 steps); 1665:stalled-server(target 500, 15 steps); 1799:silent-connection(target 3, 40 steps); 1809:cluster-changed(target 954, 25 steps)"},
	{defect: 20, rule: "checkpoint-delivered", seed: 5858, live: true,
		name:   "after a cluster change, a pod untold as older than the old cluster's Deleted is forgotten with the tombstone, and never told",
		faults: "100:restart(target 574, 22 steps); 157:cluster-changed(target 196, 62 steps); 226:crd-removed(target 303, 46 steps); 257:apiserver-restart(target 266, 24 steps); 327:stalled-server(target 513, 19 steps); 586:relist(target 852, 52 steps)"},
	{defect: 20, rule: "converge", seed: 7868,
		name:   "after a cluster change, the old cluster's pod let go by its last holder lays a tombstone at its revision, and the new cluster's pod, older, is never told",
		faults: "67:write-burst(target 36, 11 steps); 70:write-burst(target 665, 53 steps); 94:silent-connection(target 918, 61 steps); 104:consumer-held(target 122, 44 steps); 199:unreachable(target 332, 22 steps); 203:slow-consumer(target 940, 31 steps); 205:cluster-changed(target 355, 10 steps); 223:watch-cut(target 1006, 10 steps); 307:unreachable(target 447, 48 steps); 430:write-burst(target 119, 12 steps); 810:write-burst(target 810, 28 steps); 909:stream-cut-before-end(target 694, 37 steps); 1033:relist(target 549, 26 steps); 1196:watch-cut(target 726, 60 steps); 1364:stream-cut-before-end(target 331, 59 steps); 1404:slow-consumer(target 440, 59 steps); 1442:identity-unknown(target 803, 49 steps); 1450:consumer-held(target 736, 35 steps); 1604:stream-cut-before-end(target 1010, 38 steps); 1619:stalled-server(target 535, 61 steps); 1665:slow-consumer(target 492, 63 steps); 1744:silent-connection(target 499, 17 steps); 1876:apiserver-restart(target 760, 18 steps); 1979:slow-get(target 952, 53 steps); 1997:slow-consumer(target 504, 53 steps); 2069:stream-cut-before-end(target 119, 31 steps); 2122:stream-cut-before-end(target 948, 38 steps); 2129:relist(target 752, 15 steps); 2183:cluster-changed(target 422, 5 steps); 2192:slow-consumer(target 468, 36 steps)"},
	{defect: 20, rule: "converge", seed: 839, live: true,
		name: "after a cluster change, a type's relist that completes after the other type's deletes the old cluster's pod " +
			"at its old revision, and the tombstone that leaves hides the new cluster's pod of that name",
		faults: "105:write-burst(target 76, 15 steps); 105:cluster-changed(target 755, 30 steps); 132:continue-at-newer-revision(target 741, 28 steps); 161:slow-consumer(target 760, 45 steps); 376:silent-connection(target 1018, 46 steps); 740:watch-cut(target 338, 21 steps); 785:write-burst(target 116, 57 steps); 793:cache-stall(target 493, 55 steps); 811:watch-410(target 176, 16 steps); 831:crd-removed(target 657, 31 steps); 1010:consumer-held(target 869, 7 steps); 1012:restart(target 584, 48 steps); 1018:kill(target 827, 29 steps); 1193:consumer-held(target 925, 43 steps); 1199:identity-unknown(target 647, 54 steps); 1265:relist(target 217, 50 steps); 1292:write-burst(target 435, 26 steps); 1365:stalled-server(target 214, 43 steps); 1370:identity-unknown(target 204, 62 steps); 1375:internal-error(target 497, 19 steps); 1520:cluster-changed(target 320, 59 steps); 1649:continue-at-newer-revision(target 280, 18 steps); 1669:slow-consumer(target 460, 44 steps)"},
	{defect: 19, rule: "checkpoint-delivered", seed: 91581,
		name: "a type's relist from another cluster lets the consumer's pod go while the other type, behind, holds an older one; " +
			"then it brings that cluster's pod at a lower revision: the consumer keeps a revision no type holds",
		faults: "11:kill(target 251, 48 steps); 12:forbidden(target 609, 9 steps); 52:torn-write(target 54, 23 steps); 54:identity-unknown(target 412, 37 steps); 68:stream-cut-before-end(target 234, 20 steps); 114:no-bookmarks(target 697, 18 steps); 127:unreachable(target 1022, 57 steps); 137:compact(target 773, 8 steps); 290:watchlist-refused(target 5, 58 steps); 355:kill(target 782, 52 steps); 561:watch-cut(target 49, 31 steps); 723:apiserver-restart(target 651, 64 steps); 796:consumer-held(target 773, 30 steps); 811:internal-error(target 709, 27 steps); 830:identity-unknown(target 984, 39 steps); 872:cluster-changed(target 626, 5 steps); 876:forbidden(target 620, 32 steps)"},
	{defect: 21, rule: "checkpoint-delivered", seed: 3499, live: true,
		name: "a type that held the consumer's pod relists from another cluster, its identity unread, and brings that cluster's pod " +
			"at the same revision: the consumer keeps the old cluster's, which no type holds",
		faults: "123:stalled-server(target 148, 59 steps); 137:cluster-changed(target 676, 49 steps); 197:crd-removed(target 232, 16 steps); 319:forbidden(target 684, 17 steps); 327:cluster-changed(target 934, 17 steps)"},
}

// simOpenCases are seeds that find defects beyond those, not fixed yet: each
// breaks the rule named as its defect (-sim.regressions=found); they run
// clean once it is fixed (-sim.regressions=fixed), and then join the cases
// above.
var simOpenCases = []simCase{
	{defect: 19, rule: "checkpoint-delivered", seed: 96552,
		name: "after a cluster change is found, a type's relist brings a pod older than the one the other type holds and the " +
			"consumer was told before; the merge tells the older one (the consumer's revision is forgotten), and the other " +
			"type's relist, its ledger holding the newer one, never tells it again",
		faults: "61:cluster-changed(target 464, 29 steps)"},
	{defect: 20, rule: "checkpoint-delivered", seed: 56323, live: true,
		name: "after two cluster changes, one before its identity could be read: the consumer holds one cluster's pod while " +
			"the file's merge, by revision, resumes the other's",
		faults: "68:apiserver-restart(target 584, 16 steps); 93:identity-unknown(target 315, 63 steps); 177:cluster-changed(target 798, 15 steps); 310:identity-unknown(target 487, 45 steps)"},
}
