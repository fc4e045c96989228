// The stop flag a training loop (and a sweep's parent process) polls: set by SIGINT and SIGTERM
// once install_interrupt_handler has run, so a run stops at a checkpoint. Plain C++
// (interrupt.cc, in the torch-free library), for the sweep scheduler too.
#pragma once

namespace graphcost::train {

// Makes SIGINT set the stop flag (a second SIGINT ends the process as usual).
void install_interrupt_handler();
// Sets, reads and clears the flag the loop polls before every iteration.
void request_stop();
bool stop_requested();
void clear_stop_request();

}  // namespace graphcost::train
