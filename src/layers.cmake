# The library layers of src/, lowest first: the one list that the main build (CMakeLists.txt,
# tests/CMakeLists.txt) and the sanitizer build (tests/sanitize/CMakeLists.txt) read. Each
# src/LAYER/CMakeLists.txt says which of its files build into graphcost_base (plain C++, checked
# never to include LibTorch) and which into graphcost_torch; tests/LAYER/CMakeLists.txt says the
# same of its tests (graphcost_tests or graphcost_torch_tests). The front-ends (src/cli,
# src/serve, python/) build on these libraries and are not layers.
set(GRAPHCOST_LAYERS core io data synth run eval sweep study xgb stack model infer train tune dist)
