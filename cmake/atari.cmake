# Atari (ALE) env family: owned by the Atari work; included from CMakeLists.txt.
# When it adds sources it also defines ENVFLEET_WITH_ATARI so registry.cc registers them.
