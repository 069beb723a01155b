/* Linked with one layer and the layers below it only: if the layer calls
 * upward, this executable fails to link (see cuzk_layer in CMakeLists.txt). */
int main(void) { return 0; }
