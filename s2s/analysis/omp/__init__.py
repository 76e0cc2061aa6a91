"""Data mapping of OpenMP offload programs: where device data regions go, what they copy.

``s2s omp`` (:mod:`s2s.transform.omp`) asks :func:`s2s.analysis.omp.plan.plan_file` for a plan
of one translation unit and turns it into directives. The analysis is a pipeline:

1. IR (:mod:`.ir`, with the counting-loop facts of :mod:`.loops`): each host function as a
   structured tree of nodes carrying accesses, pointer copies and calls in execution order;
2. dataflow (:mod:`.flow`, over the lattice of :mod:`.state`, calls in :mod:`.calls`): where
   the host and device copies of each array are fresh, and where an access needs a copy;
3. plan (:mod:`.plan`): which functions get a data region and which statements it spans
   (:mod:`.region`), the entry copies and ``target update`` directives found by repeated
   dataflow (:mod:`.solver`), each array's map types and partial copies (:mod:`.arrays`).
   It draws on element counts and liveness (:mod:`.sizes`), the index ranges the host
   touches (:mod:`.sections`, with range facts from input checks in :mod:`.facts`), the
   elements the device writes before it reads them (:mod:`.cover`), the hand-written
   mappings it keeps, tightens or takes over (:mod:`.existing`, :mod:`.callee_maps`), the
   checks that leave a function as written (:mod:`.guards`) and the map types of
   function-local arrays (:mod:`.locals`);
4. placement (:mod:`.place`, with the element copies inside host loops of :mod:`.probe`):
   where each copy goes and what it copies;
5. report (:mod:`.report`): which target constructs end up with every pointer they use
   mapped, and why the others do not.

The index-polynomial arithmetic is :mod:`s2s.analysis.polynomial`, shared with other passes.
Nothing is imported here, so importing one module of the package loads only what it needs.
"""
